// The console type-checks against the DOM, not the Workers runtime (their `Element` types
// clash), yet the server types it imports mention a few Worker-only names. These stand-ins
// are only for `tsc -p ui`; nothing in the browser bundle uses them.
type SqlStorageValue = ArrayBuffer | string | number | null;
interface SqlStorageCursor<T extends Record<string, SqlStorageValue>> extends Iterable<T> {
  next(): { done?: false; value: T } | { done: true; value?: never };
  toArray(): T[];
  one(): T;
  raw<U extends SqlStorageValue[]>(): IterableIterator<U>;
  columnNames: string[];
  get rowsRead(): number;
  get rowsWritten(): number;
}
