#!/usr/bin/env tsx
/**
 * `npx meeting-pipeline <command>`: the package's bin (package.json "bin"). npx runs
 * it with the project's node_modules/.bin on PATH, so tsx and Node 22 are the project's own.
 */
import { main } from '../cli/main';
import { exitQuietlyWhenOutputCloses } from '../cli/terminal';

exitQuietlyWhenOutputCloses();
process.exitCode = await main(process.argv.slice(2));
