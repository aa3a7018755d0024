/**
 * Native memory for one PKCS#11 call sequence. We hand the module raw pointers from
 * `koffi.alloc` rather than JS Buffers: a template's pValue fields must point at memory that
 * neither moves nor is collected while an async call runs on a koffi worker thread, and small
 * typed arrays may live on V8's moving heap. Everything is freed (secrets wiped first) in `free()`.
 */
import type { Koffi, KoffiType } from '../loader';

export class NativeArena {
  readonly #koffi: Koffi;
  readonly #blocks: { pointer: bigint; size: number }[] = [];

  constructor(koffi: Koffi) {
    this.#koffi = koffi;
  }

  /** Zero-filled block of `size` bytes. */
  alloc(size: number): bigint {
    const length = Math.max(size, 1);
    const pointer = this.#koffi.alloc('uint8_t', length) as bigint;
    new Uint8Array(this.#koffi.view(pointer, length)).fill(0);
    this.#blocks.push({ pointer, size: length });
    return pointer;
  }

  /** A copy of `data` in native memory. */
  bytes(data: Uint8Array): bigint {
    const pointer = this.alloc(data.length);
    if (data.length > 0) new Uint8Array(this.#koffi.view(pointer, data.length)).set(data);
    return pointer;
  }

  /** One CK_ULONG, initialised to `value`. */
  ulong(value: number | bigint = 0): bigint {
    const pointer = this.alloc(this.#koffi.sizeof('unsigned long'));
    this.#koffi.encode(pointer, 'unsigned long', value);
    return pointer;
  }

  readUlong(pointer: bigint, offset = 0): bigint {
    return BigInt(this.#koffi.decode(pointer, offset, 'unsigned long') as number | bigint);
  }

  /** A copy of `length` bytes at `pointer` (the copy outlives `free()`). */
  read(pointer: bigint, length: number): Uint8Array {
    if (length === 0) return new Uint8Array(0);
    return new Uint8Array(this.#koffi.view(pointer, length)).slice();
  }

  encode(pointer: bigint, offset: number, type: KoffiType, value: unknown): void {
    this.#koffi.encode(pointer, offset, type, value);
  }

  /** Wipes and frees every block (PINs included). Safe to call twice. */
  free(): void {
    for (const { pointer, size } of this.#blocks.splice(0)) {
      new Uint8Array(this.#koffi.view(pointer, size)).fill(0);
      this.#koffi.free(pointer);
    }
  }
}
