/** Packages that ship no types: the parts we use. */

/** dynalite */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

/** asl-validator ships no types; this is the part we use. */
declare module 'asl-validator' {
  interface AslValidation {
    isValid: boolean;
    errors: Array<{ 'Error code': string; Message: string }>;
    errorsText(separator?: string): string;
  }
  export default function aslValidator(definition: unknown): AslValidation;
}

/** webvtt-parser ships no types; this is the part the transcript tests use. */
declare module 'webvtt-parser' {
  interface WebVttNode {
    type: 'object' | 'text' | 'timestamp';
    name?: string;
    value?: string;
    children?: WebVttNode[];
  }
  interface WebVttCue {
    id: string;
    startTime: number;
    endTime: number;
    text: string;
    tree: { children: WebVttNode[] };
  }
  interface WebVttResult {
    cues: WebVttCue[];
    errors: Array<{ message: string; line: number }>;
  }
  export class WebVTTParser {
    constructor(entities?: Record<string, string>);
    parse(input: string, mode?: 'metadata' | 'chapters'): WebVttResult;
  }
}
