/**
 * Large documents cross to and from the PDF worker processes through files, not the IPC channel:
 * V8-serializing 100 MB through the channel took 430 ms each way (measured on a 2-core machine), a
 * file in the config dir's work/ folder about half of that, and the file is read where it is
 * needed. Small values go through the channel as they are.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { open, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FILE_MIN_BYTES, isFileBytes, type FileBytes } from '../store/file-bytes';

export { FILE_MIN_BYTES };

export type { FileBytes };

let counter = 0;
function scratchName(dir: string): string {
  counter += 1;
  return join(dir, `xfer-${process.pid}-${counter}-${randomBytes(4).toString('hex')}.tmp`);
}


function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && (Object.getPrototypeOf(v) === Object.prototype || Array.isArray(v));
}

/** `value` with each Uint8Array of at least FILE_MIN_BYTES replaced by what `replace` makes of it. */
function mapLarge<T>(value: T, replace: (bytes: Uint8Array) => unknown): T {
  if (value instanceof Uint8Array) return (value.byteLength >= FILE_MIN_BYTES ? replace(value) : value) as T;
  if (!isPlain(value)) return value;
  const out: Record<string, unknown> = Array.isArray(value) ? ([] as unknown as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(value)) out[k] = mapLarge(v, replace);
  return out as T;
}

function mapFiles<T>(value: T, read: (ref: FileBytes) => Uint8Array): T {
  if (isFileBytes(value)) return read(value) as T;
  if (!isPlain(value)) return value;
  const out: Record<string, unknown> = Array.isArray(value) ? ([] as unknown as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(value)) out[k] = mapFiles(v, read);
  return out as T;
}

/** Service side: writes the large byte arrays of `value` to `dir`; the caller removes `files` once answered. */
export async function toFiles<T>(value: T, dir: string): Promise<{ value: T; files: string[] }> {
  const writes: Promise<void>[] = [];
  const files: string[] = [];
  const out = mapLarge(value, (bytes) => {
    const path = scratchName(dir);
    files.push(path);
    writes.push(writeFile(path, bytes, { mode: 0o600 }));
    return { $file: path, length: bytes.byteLength } satisfies FileBytes;
  });
  try {
    await Promise.all(writes);
  } catch (error) {
    await removeFiles(files);
    throw error;
  }
  return { value: out, files };
}

/**
 * Service side: reads (and removes) the files a worker answered with. A large document the
 * service only hands on (to the next step, or to the store) is better left in its file: see
 * DocumentWork's `keep`.
 */
export async function fromFiles<T>(value: T): Promise<T> {
  const refs: FileBytes[] = [];
  mapFiles(value, (ref) => (refs.push(ref), new Uint8Array(0)));
  if (refs.length === 0) return value;
  const loaded = new Map<string, Uint8Array>();
  try {
    for (const ref of refs) loaded.set(ref.$file, await readWhole(ref));
  } finally {
    await removeFiles(refs.map((r) => r.$file));
  }
  return mapFiles(value, (ref) => loaded.get(ref.$file)!);
}

/**
 * One read into one buffer (fs.promises.readFile reads 512 KiB at a time: 287 ms for 100 MB,
 * measured on a 2-core machine).
 */
async function readWhole(ref: FileBytes): Promise<Uint8Array> {
  const handle = await open(ref.$file, 'r');
  try {
    const out = Buffer.allocUnsafe(ref.length);
    let done = 0;
    while (done < ref.length) {
      const { bytesRead } = await handle.read(out, done, ref.length - done, done);
      if (bytesRead === 0) throw new Error(`${ref.$file} ends at byte ${done} of ${ref.length}`);
      done += bytesRead;
    }
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } finally {
    await handle.close();
  }
}

export async function removeFiles(files: string[]): Promise<void> {
  await Promise.all(files.map((f) => unlink(f).catch(() => undefined)));
}

/** A new buffer, as a plain Uint8Array: a Buffer's `slice` is a view, where the engine expects a copy. */
export function newBytes(size: number): Uint8Array {
  const b = Buffer.allocUnsafe(size);
  return new Uint8Array(b.buffer, b.byteOffset, size);
}

/**
 * Worker side: the task with its files read (the service removes them), each into what `allocate`
 * gives (reused-buffers.ts), by default a new buffer.
 */
export function loadFilesSync<T>(value: T, allocate: (size: number) => Uint8Array = newBytes): T {
  return mapFiles(value, (ref) => {
    const fd = openSync(ref.$file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size !== ref.length) throw new Error(`${ref.$file} holds ${size} bytes, ${ref.length} were sent`);
      const out = allocate(size);
      let done = 0;
      while (done < size) {
        const read = readSync(fd, out, done, size - done, done);
        if (read === 0) throw new Error(`${ref.$file} ends at byte ${done} of ${size}`);
        done += read;
      }
      return out;
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * Worker side: the answer with its large byte arrays written to `dir` (the service reads and removes
 * them). Each is written as `<name>.part` and renamed once whole: a worker killed while it writes
 * leaves only `.part` files, which the service removes when the worker has ended (removePartials).
 */
export function saveFilesSync<T>(value: T, dir: string): T {
  return mapLarge(value, (bytes) => {
    const path = scratchName(dir);
    writeFileSync(`${path}${PART}`, bytes, { mode: 0o600 });
    renameSync(`${path}${PART}`, path);
    return { $file: path, length: bytes.byteLength } satisfies FileBytes;
  });
}

/** The suffix of an answer file still being written. */
const PART = '.part';

/**
 * Service side: the answer files a worker process (`pid`) had not finished when it ended (killed
 * over a limit, or dying): never handed to the service, so nothing else removes them before the
 * next start.
 */
export async function removePartials(dir: string, pid: number): Promise<void> {
  const prefix = `xfer-${pid}-`;
  const names = await readdir(dir).catch(() => [] as string[]);
  await removeFiles(names.filter((n) => n.startsWith(prefix) && n.endsWith(PART)).map((n) => join(dir, n)));
}

/**
 * Worker side: a large answer given in parts (a document, then its update), written one after the
 * other into one file, as saveFilesSync writes a whole one. A failed write removes the file.
 */
export function savePartsSync(parts: readonly Uint8Array[], dir: string): FileBytes {
  const path = scratchName(dir);
  const fd = openSync(`${path}${PART}`, 'w', 0o600);
  let length = 0;
  try {
    for (const part of parts) {
      for (let done = 0; done < part.length; ) done += writeSync(fd, part, done, part.length - done);
      length += part.length;
    }
  } catch (error) {
    closeSync(fd);
    unlinkSync(`${path}${PART}`);
    throw error;
  }
  closeSync(fd);
  renameSync(`${path}${PART}`, path);
  return { $file: path, length };
}
