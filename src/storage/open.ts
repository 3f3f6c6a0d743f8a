/**
 * A store from its root URI, as `--data` and `PAXD_DATA` give it: a local folder path
 * (or file:// URL), or s3://bucket/prefix (not yet supported).
 *
 *   openStore('./paxd-data')   // LocalStore rooted at <cwd>/paxd-data
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unsupported } from '../types/errors.js';
import { LocalStore } from './local.js';
import type { ObjectStore } from './store.js';

export async function openStore(uri: string): Promise<ObjectStore> {
  if (uri.startsWith('s3://')) throw unsupported('object storage (s3://)');
  return new LocalStore(resolve(uri.startsWith('file://') ? fileURLToPath(uri) : uri));
}
