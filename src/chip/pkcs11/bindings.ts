/**
 * The PKCS#11 v2.40 calls we make, bound through koffi from the module's CK_FUNCTION_LIST.
 *
 * Every call runs through koffi's `.async`: it executes on a koffi worker thread and resolves on
 * the event loop. A C_Sign on a real token takes 100+ ms (C_Login with a PIN pad: seconds); a
 * sync call would freeze the HTTP service for that long. Concurrency is still one call at a time
 * per session, enforced by the chip's queue, and the module is initialised with
 * CKF_OS_LOCKING_OK since calls arrive from different threads.
 */
import type { Koffi, KoffiFunction, KoffiType, LoadedPkcs11Module } from '../loader';
import { ChipError } from '../../domain/errors';
import { NativeArena } from './native-memory';
import { check } from './return-codes';

/** Position of each function in CK_FUNCTION_LIST (pkcs11f.h order, v2.40 §5.2). */
const FUNCTION_INDEX = {
  C_Initialize: 0,
  C_Finalize: 1,
  C_GetSlotList: 4,
  C_GetTokenInfo: 6,
  C_OpenSession: 12,
  C_CloseSession: 13,
  C_CloseAllSessions: 14,
  C_Login: 18,
  C_Logout: 19,
  C_GetAttributeValue: 24,
  C_FindObjectsInit: 26,
  C_FindObjects: 27,
  C_FindObjectsFinal: 28,
  C_SignInit: 42,
  C_Sign: 43,
} as const;

export type Pkcs11FunctionName = keyof typeof FUNCTION_INDEX;

// CK_ULONG and every handle type are `unsigned long`: 8 bytes on Linux/macOS x64, 4 on Windows x64.
const UL = 'unsigned long';
const PTR = 'void *';
const PARAMETERS: Record<Pkcs11FunctionName, string[]> = {
  C_Initialize: [PTR],
  C_Finalize: [PTR],
  C_GetSlotList: ['uint8_t', PTR, PTR],
  C_GetTokenInfo: [UL, PTR],
  C_OpenSession: [UL, UL, PTR, PTR, PTR],
  C_CloseSession: [UL],
  C_CloseAllSessions: [UL],
  C_Login: [UL, UL, PTR, UL],
  C_Logout: [UL],
  C_GetAttributeValue: [UL, UL, PTR, UL],
  C_FindObjectsInit: [UL, PTR, UL],
  C_FindObjects: [UL, PTR, UL, PTR],
  C_FindObjectsFinal: [UL],
  C_SignInit: [UL, PTR, UL],
  C_Sign: [UL, PTR, UL, PTR, PTR],
};

export interface Pkcs11Types {
  /** CK_ATTRIBUTE {type, pValue, ulValueLen} */
  attribute: KoffiType;
  /** CK_MECHANISM {mechanism, pParameter, ulParameterLen} */
  mechanism: KoffiType;
  /** CK_C_INITIALIZE_ARGS {CreateMutex, DestroyMutex, LockMutex, UnlockMutex, flags, pReserved} */
  initializeArgs: KoffiType;
}

export interface Pkcs11Api {
  readonly koffi: Koffi;
  readonly modulePath: string;
  /**
   * The loaded library. Held for as long as the API lives: koffi unloads (dlclose) a library
   * whose handle is garbage-collected, and the function pointers below would then point into
   * unmapped memory (a SIGSEGV seen under load in the service, when GC ran between calls).
   */
  readonly library: LoadedPkcs11Module['library'];
  readonly types: Pkcs11Types;
  /** CK_UNAVAILABLE_INFORMATION, i.e. (CK_ULONG)~0 for this ABI. */
  readonly unavailable: bigint;
  /** Runs one PKCS#11 function on a koffi worker thread and resolves with its CK_RV. */
  call(name: Pkcs11FunctionName, ...args: unknown[]): Promise<number>;
  arena(): NativeArena;
}

function defineTypes(koffi: Koffi): Pkcs11Types {
  // pkcs11.h asks for 1-byte packing on Windows only (`#pragma pack(push, cryptoki, 1)` in the
  // platform section of the v2.40 headers); everywhere else the natural C layout applies.
  const layout = process.platform === 'win32' ? koffi.pack : koffi.struct;
  return {
    attribute: layout({ type: UL, pValue: PTR, ulValueLen: UL }),
    mechanism: layout({ mechanism: UL, pParameter: PTR, ulParameterLen: UL }),
    initializeArgs: layout({
      CreateMutex: PTR,
      DestroyMutex: PTR,
      LockMutex: PTR,
      UnlockMutex: PTR,
      flags: UL,
      pReserved: PTR,
    }),
  };
}

/** Calls C_GetFunctionList and decodes the function pointers we use. */
export async function bindFunctionList(module: LoadedPkcs11Module): Promise<Pkcs11Api> {
  const { koffi } = module;
  const arena = new NativeArena(koffi);
  let listPointer: bigint;
  try {
    const out = arena.alloc(koffi.sizeof(PTR));
    check('C_GetFunctionList', Number(module.getFunctionList(out)));
    listPointer = BigInt(koffi.decode(out, PTR) as bigint | null ?? 0);
  } finally {
    arena.free();
  }
  if (listPointer === 0n) throw new ChipError(`PKCS#11 module ${module.path} returned no function list`);

  // CK_FUNCTION_LIST starts with CK_VERSION (two CK_BYTEs); the pointers follow at the offset the
  // platform's packing gives (8 on Linux x64, 2 on Windows with 1-byte packing).
  const layout = process.platform === 'win32' ? koffi.pack : koffi.struct;
  const head = layout({ major: 'uint8_t', minor: 'uint8_t', first: PTR });
  const base = koffi.offsetof(head, 'first');
  const pointerSize = koffi.sizeof(PTR);

  const functions = new Map<Pkcs11FunctionName, KoffiFunction>();
  for (const [name, index] of Object.entries(FUNCTION_INDEX) as [Pkcs11FunctionName, number][]) {
    const pointer = koffi.decode(listPointer, base + index * pointerSize, PTR) as bigint | null;
    if (!pointer) throw new ChipError(`PKCS#11 module ${module.path} does not implement ${name}`);
    const prototype = koffi.proto(UL, PARAMETERS[name]);
    functions.set(name, koffi.decode(pointer, prototype) as KoffiFunction);
  }

  const ulongBits = BigInt(koffi.sizeof(UL) * 8);
  return {
    koffi,
    modulePath: module.path,
    library: module.library,
    types: defineTypes(koffi),
    unavailable: (1n << ulongBits) - 1n,
    arena: () => new NativeArena(koffi),
    call(name, ...args) {
      const fn = functions.get(name) as KoffiFunction;
      return new Promise<number>((resolvePromise, reject) => {
        const fail = (error: unknown) => reject(new ChipError(`${name} could not be called: ${String(error)}`, { cause: error }));
        try {
          fn.async(...args, (error: unknown, rv: number | bigint) => {
            if (error) fail(error);
            else resolvePromise(Number(rv));
          });
        } catch (error) {
          fail(error); // koffi refused the arguments or its async queue is full (max_async_calls)
        }
      });
    },
  };
}
