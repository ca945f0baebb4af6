import type { TableAccess } from '../store/dynamo';

/** What the read core needs of S3: a stored text (a long summary) and a signed link to an object. */
export interface ReadObjects {
  readText(bucket: string, key: string): Promise<string>;
  /** A GET link to the object, valid `seconds`. */
  presignGet(bucket: string, key: string, seconds: number): Promise<string>;
}

/** The read core's clients and settings; the Lambda, local mode and tests build them alike. */
export interface ReadDependencies {
  table: TableAccess;
  objects: ReadObjects;
  /** How long a recording link stays valid. */
  recordingLinkSeconds: number;
  now(): Date;
}
