/**
 * What the stores refuse, one class per kind of cause, so a host can tell a database it must migrate from one that is
 * damaged, and both from its own misuse (docs/spec/store.md).
 */

/** A database this version cannot read: another format, or an older layout. Nothing is damaged. */
export class StoreFormatError extends Error {
  override name = "StoreFormatError";
}

/** A database whose content is damaged: a record, a node or a height that does not decode as this store wrote it. */
export class CorruptStoreError extends Error {
  override name = "CorruptStoreError";
}

/** A call the store's state does not allow: it is closed, a commit is in flight, a version is not saved yet. */
export class StoreStateError extends Error {
  override name = "StoreStateError";
}

/** A read of what the store does not have: a store not mounted at that height, a proof it cannot give. */
export class StoreQueryError extends Error {
  override name = "StoreQueryError";
}
