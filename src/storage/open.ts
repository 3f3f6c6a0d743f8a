/**
 * A store from its root URI, as `--data` and `PAXD_DATA` give it: a local folder path
 * (or file:// URL), or s3://bucket/prefix (an S3 or S3-compatible bucket, configured from
 * the standard AWS environment; see ./s3.ts).
 *
 *   openStore('./paxd-data')         // LocalStore rooted at <cwd>/paxd-data
 *   openStore('s3://lake/paxd')      // S3Store on bucket "lake", keys under "paxd/"
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalStore } from './local.js';
import type { ObjectStore } from './store.js';

/** The store root when neither --data nor PAXD_DATA names one. */
export const DEFAULT_DATA = './paxd-data';

export async function openStore(uri: string): Promise<ObjectStore> {
  // The AWS SDK takes longer to load than most commands take to run: only for s3:// roots.
  if (uri.startsWith('s3://')) return (await import('./s3.js')).S3Store.fromUri(uri);
  return new LocalStore(resolve(uri.startsWith('file://') ? fileURLToPath(uri) : uri));
}
