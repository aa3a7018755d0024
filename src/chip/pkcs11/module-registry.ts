/**
 * One initialised PKCS#11 module per path per process. C_Initialize may be called once per
 * process (a second call is CKR_CRYPTOKI_ALREADY_INITIALIZED, v2.40 §5.4), so chips on the same
 * module share it and the last `release()` calls C_Finalize.
 *
 * Module-specific configuration comes from the environment read at C_Initialize (SoftHSM2 reads
 * SOFTHSM2_CONF), so one process sees one configuration of a given module.
 */
import { resolve } from 'node:path';
import { loadPkcs11Module } from '../loader';
import { bindFunctionList, type Pkcs11Api } from './bindings';
import { CKF_OS_LOCKING_OK } from './constants';
import { CKR_CRYPTOKI_ALREADY_INITIALIZED, check } from './return-codes';

export interface Pkcs11Module {
  readonly api: Pkcs11Api;
  /**
   * C_Finalize then C_Initialize: some modules (SoftHSM2 among them) only rescan their slots at
   * C_Initialize, so a token that came back is visible only after this. Invalidates every
   * session of every chip on the module; those reconnect on their next call.
   */
  reinitialize(): Promise<void>;
  release(): Promise<void>;
}

interface Entry {
  api: Pkcs11Api;
  refs: number;
  /** False when someone else in the process initialised the module: then we never finalize it. */
  ownsInitialization: boolean;
  /** The C_Finalize + C_Initialize in progress, if any. */
  rescan: Promise<void> | null;
}

const entries = new Map<string, Promise<Entry>>();

async function initialize(api: Pkcs11Api): Promise<boolean> {
  const arena = api.arena();
  try {
    const args = arena.alloc(api.koffi.sizeof(api.types.initializeArgs));
    arena.encode(args, 0, api.types.initializeArgs, {
      CreateMutex: null,
      DestroyMutex: null,
      LockMutex: null,
      UnlockMutex: null,
      flags: CKF_OS_LOCKING_OK,
      pReserved: null,
    });
    const rv = await api.call('C_Initialize', args);
    check('C_Initialize', rv, undefined, [CKR_CRYPTOKI_ALREADY_INITIALIZED]);
    return rv !== CKR_CRYPTOKI_ALREADY_INITIALIZED;
  } finally {
    arena.free();
  }
}

async function open(path: string): Promise<Entry> {
  const api = await bindFunctionList(loadPkcs11Module(path));
  const ownsInitialization = await initialize(api);
  return { api, refs: 0, ownsInitialization, rescan: null };
}

/** Loads and initialises the module at `path` once, and counts one more user of it. */
export async function acquirePkcs11Module(path: string): Promise<Pkcs11Module> {
  const key = resolve(path);
  let pending = entries.get(key);
  if (!pending) {
    pending = open(path);
    entries.set(key, pending);
    pending.catch(() => entries.delete(key));
  }
  const entry = await pending;
  entry.refs += 1;
  let released = false;
  return {
    api: entry.api,
    reinitialize() {
      // Chips that lose their sessions together (the rescan of one invalidates the others) share
      // one rescan instead of finalising each other's fresh initialisation in turn.
      entry.rescan ??= (async () => {
        // C_Finalize may answer CKR_CRYPTOKI_NOT_INITIALIZED when an earlier rescan failed half
        // way; the C_Initialize that follows is what matters.
        await entry.api.call('C_Finalize', null);
        entry.ownsInitialization = await initialize(entry.api);
      })().finally(() => {
        entry.rescan = null;
      });
      return entry.rescan;
    },
    async release() {
      if (released) return;
      released = true;
      entry.refs -= 1;
      if (entry.refs > 0) return;
      entries.delete(key);
      if (entry.ownsInitialization) await entry.api.call('C_Finalize', null);
    },
  };
}
