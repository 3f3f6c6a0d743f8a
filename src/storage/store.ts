/**
 * The object store interface: what paxd needs from a medium. Implemented by the local-disk
 * store (./local.ts) and, later, the S3 store. Paths are relative, '/'-separated keys
 * ("lineitem/data/0001.pax"); a store never interprets them beyond that.
 *
 * Guarantees every implementation gives:
 * - `create()` writes a new object that becomes durable when `close()` resolves (fsync of
 *   the file and its directory on local disk; a completed PUT or multipart upload on S3). An
 *   aborted or crashed writer leaves at most garbage under a name no snapshot references.
 * - `putIfAbsent()` is the commit primitive: it atomically creates an object only if none
 *   exists at that path (link()/O_EXCL on local disk, If-None-Match: * on S3) and is durable
 *   when it resolves. Never a rename-over, never an overwrite.
 * - `read()` with a range returns exactly the bytes asked for, or throws a PaxdError of
 *   kind 'corruption' (XX001) naming the path and offset when the object is shorter (a
 *   truncated file), or kind 'not_found' (58P01) when the object is missing.
 * - Any other failure of the medium is a PaxdError of kind 'io' (58030) naming the path.
 *   After an 'io' error from `putIfAbsent()` the object is not visible, but a crash could
 *   still bring it back: like a failed COMMIT, the outcome is unknown to the caller.
 */

export interface ObjectInfo {
  /** Path relative to the store root. */
  readonly path: string;
  readonly size: number;
  /** Last modification time, ms since the epoch (used by vacuum's grace period). */
  readonly mtimeMs: number;
}

export interface ObjectWriter {
  readonly path: string;
  /** Bytes written so far (the offset the next write lands at). */
  readonly position: number;
  write(bytes: Uint8Array): Promise<void>;
  /** Makes everything written durable and closes the object. */
  close(): Promise<void>;
  /** Closes and removes what was written (best effort; never throws for a missing file). */
  abort(): Promise<void>;
}

export interface ObjectStore {
  /** The store's root URI, for messages (a local path or s3://bucket/prefix). */
  readonly uri: string;
  /** True when objects can be appended to in place (local disk), false on S3. */
  readonly canAppend: boolean;

  /** Reads `length` bytes at `offset` (the whole object when both are omitted). */
  read(path: string, offset?: number, length?: number): Promise<Uint8Array>;
  /** Size and mtime of an object, or null when it does not exist. */
  stat(path: string): Promise<ObjectInfo | null>;
  /** Starts a new object; fails with kind 'exists' (58P02) if the path already exists. */
  create(path: string): Promise<ObjectWriter>;
  /**
   * Opens an existing object for appending at `offset` (its committed logical end): bytes
   * past `offset`, left by a crashed append, are overwritten. Only when `canAppend`.
   */
  append(path: string, offset: number): Promise<ObjectWriter>;
  /** Creates `path` holding `bytes` only if it does not exist: true if created, false if it existed. */
  putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean>;
  /**
   * Objects whose path starts with `prefix`, in lexicographic order of path; with
   * `startAfter`, only those whose path sorts after it (S3's `start-after`: the request lists
   * from there, so a long history before it costs nothing). Callers still filter: a store may
   * ignore `startAfter`.
   */
  list(prefix: string, startAfter?: string): Promise<ObjectInfo[]>;
  /** Removes an object; a missing object is not an error. */
  delete(path: string): Promise<void>;
  /** Releases cached handles. */
  close(): Promise<void>;
}
