#!/usr/bin/env tsx
/**
 * `npx --no-install meeting-pipeline <command>`: the package's bin (package.json "bin"), run from this
 * repository with its node_modules/.bin on PATH, so tsx and Node 22 are the project's own. `--no-install`:
 * nowhere else may the name resolve, least of all to a package someone registers under it.
 */
import { main } from '../cli/main';
import { exitQuietlyWhenOutputCloses } from '../cli/terminal';

exitQuietlyWhenOutputCloses();
process.exitCode = await main(process.argv.slice(2));
