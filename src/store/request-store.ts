import { AppendJournal } from './append-journal';

export type RequestStatus = 'PENDING' | 'DONE' | 'ERROR';

/**
 * What every kind's params carry (the kind's own fields beside them: signing/kinds/). `engine`:
 * who signs, fixed at accept time. `pinFromRequest`: the request brought its own chip PIN
 * (`chip_pin`); only this mark is journaled: the PIN is held in memory for the one
 * signature, so a request resumed after a restart has none and ends ERROR instead of signing
 * without it.
 */
export type KindParams = {
  engine: string;
  pinFromRequest?: true;
};

/**
 * The journal's names: snake_case, as every journal has written them and as the wire spells them,
 * for an entry's own fields and for its params. Both are converted here, at the store edge, and
 * nowhere else.
 */
type UpperLetter = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L' | 'M' | 'N' | 'O' | 'P' | 'Q' | 'R' | 'S' | 'T' | 'U' | 'V' | 'W' | 'X' | 'Y' | 'Z';
/** The camelCase keys of `T`: each needs its stored name below, so a new field cannot reach the journal in camelCase (the compiler says which is missing). */
type CamelKeys<T> = { [K in keyof T]-?: K extends `${string}${UpperLetter}${string}` ? K : never }[keyof T];
const STORED_ENTRY_NAMES = { requestId: 'request_id', credentialKey: 'credential_key', wrapperKey: 'wrapper_key', createdAt: 'created_at', completedAt: 'completed_at', errorId: 'error_id' } as const satisfies Record<CamelKeys<RequestEntryBase>, string>;

/**
 * A kind's params under their stored names: each camelCase key in snake_case (`designKey` as
 * `design_key`, `txHash` as `tx_hash`), the names every journal has used. A rule rather than a
 * list, so a new kind's fields cannot reach the journal in camelCase for want of a line here: the
 * kind's params type is its own (signing/kinds/), and its keys are camelCase by the kind contract
 * (signing/kind.ts CamelCaseKeys). Read back, `_x` is `X` again; the variables map inside is not
 * renamed.
 */
const storedParamName = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const paramNameOf = (stored: string): string => stored.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function renamed(fields: object, name: (key: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[name(k)] = v;
  return out;
}
const ENTRY_FROM_STORED: Record<string, string> = Object.fromEntries(Object.entries(STORED_ENTRY_NAMES).map(([a, b]) => [b, a]));
const storedEntryName = (key: string): string => (STORED_ENTRY_NAMES as Record<string, string>)[key] ?? key;
const entryNameOf = (stored: string): string => ENTRY_FROM_STORED[stored] ?? stored;

/** An entry as the journal holds it: RequestEntryBase's fields under their stored names. */
type StoredEntry = { [K in keyof RequestEntryBase as K extends keyof typeof STORED_ENTRY_NAMES ? (typeof STORED_ENTRY_NAMES)[K] : K]: RequestEntryBase[K] } & {
  params: Record<string, unknown>;
};

/** An entry as the journal writes it: its fields and params under their stored names. */
function toStored(e: RequestEntry): StoredEntry {
  return { ...renamed(e, storedEntryName), params: renamed(e.params, storedParamName) } as StoredEntry;
}

/** An entry read from the journal, in the service's words. */
function fromStored(e: StoredEntry): RequestEntry {
  const params = renamed(e.params, paramNameOf) as RequestParams;
  // Journals from before the remote platform carry no engine: they were all chip requests.
  params.engine ??= 'chip';
  return { ...renamed(e, entryNameOf), params } as unknown as RequestEntry;
}

/** Any kind's params: the common fields, and the kind's own. */
export type RequestParams = KindParams & Record<string, unknown>;

/** A signing request as persisted, with its kind's params `P`. Small: document bytes live in the document store. */
export type RequestEntry<P extends KindParams = RequestParams> = RequestEntryBase & { params: P };

export interface RequestEntryBase {
  requestId: string;
  /** Its kind's name (signing/kinds/). */
  kind: string;
  status: RequestStatus;
  credentialKey: string;
  wrapperKey: string | null;
  createdAt: string;
  completedAt: string | null;
  /**
   * Blockchain DONE: r, s, v, y_parity, address, chain_id. PAdES DONE: bytes, level, warnings (the
   * PDF is the document store's). Stored and answered under these names as they are: not renamed.
   */
  result?: Record<string, unknown>;
  error?: string;
  errorId?: string;
  /**
   * Starts of work on this request that no clean stop ended (see `attemptsOf`). Absent means 1:
   * the run that began at creation, so the first run costs no journal record of its own.
   */
  attempts?: number;
}

/** Starts of work a crash may have cut short; recovery gives up on a request after two. */
export function attemptsOf(e: RequestEntry): number {
  return e.attempts ?? 1;
}

/** A journal line; `E` is the entry: StoredEntry on disk, RequestEntry once applied. */
type JournalRecord<E = RequestEntry> =
  /** `input`: a small document journaled with its request, base64 (see RequestStore `inputs`). */
  | { t: 'c'; e: E; input?: string }
  | { t: 'd'; id: string; at: string; result: Record<string, unknown> }
  /** `error_id`: the stored name, as for an entry's fields (applied as `errorId`). */
  | { t: 'x'; id: string; at: string; error: string; error_id: string }
  | { t: 'rm'; ids: string[] }
  /** A resumed request's job is about to start: one more attempt (lifecycle.ts). */
  | { t: 'a'; id: string; at: string }
  /** A clean stop (SIGTERM) ended an attempt before it finished: that one does not count. */
  | { t: 'p'; id: string; at: string };

/**
 * Bytes of journaled inputs (base64) written since the last compaction that start one: a
 * compaction drops the inputs of the requests that ended, so the journal, and the read of it at
 * the next start, stays within about this much more than the live entries.
 */
export const COMPACT_AFTER_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * The request journal: an in-memory index rebuilt from an append-only file. Appends are O(1);
 * the file is compacted when dead records outnumber live ones (amortised O(1) per request), and
 * at start-up. Lists are served from memory, newest first, in O(limit).
 */
export class RequestStore {
  private readonly byId = new Map<string, RequestEntry>();
  /** Bytes of the results each application (wrapper key) has on disk, for its disk quota. */
  private readonly resultBytes = new Map<string, number>();
  /** Creation order; index 0 is the oldest. Removed entries leave holes compacted lazily. */
  private order: (RequestEntry | null)[] = [];
  private removed = 0;
  private readonly journal: AppendJournal;
  private compacting: Promise<void> | null = null;
  /** Journal lines a failed compaction waits for before the next is started by a record. */
  private compactAfter = 0;
  /**
   * The documents journaled with their PENDING requests, base64, until the request is final (the
   * document store keeps a small document so: store/document-store.ts JOURNALED_INPUT_MAX). The
   * document is durable with the request's own record, in the same fsync, and a compaction writes
   * it again with the entry while the request is PENDING; a final request's is dropped.
   */
  private readonly inputs = new Map<string, string>();
  /** Journaled input bytes since the last compaction began (COMPACT_AFTER_INPUT_BYTES). */
  private inputBytes = 0;
  /**
   * Requests whose document the journal file still holds, final ones included: a compaction
   * writes again only the PENDING ones'. When retention removes one of them, a compaction is due
   * (`inputsRemoved`), so a document stays in the file no longer than its request is kept (its
   * signed result, which holds it, stays as long in results/).
   */
  private inputsInFile = new Set<string>();
  private inputsRemoved = false;

  constructor(private readonly journalPath: string) {
    for (const rec of AppendJournal.readAll<JournalRecord<StoredEntry>>(journalPath)) this.apply(rec.t === 'c' ? { ...rec, e: fromStored(rec.e) } : rec);
    this.journal = new AppendJournal(journalPath);
  }

  /**
   * Rewrites the journal with only live entries, and the documents of the PENDING ones only:
   * shortly after start-up (service/server.ts), when dead records outnumber live ones, after
   * COMPACT_AFTER_INPUT_BYTES of documents, and once retention removed a request whose document
   * the file still holds (`record`). An entry carries its `attempts`, so the
   * count survives compaction. The snapshot is a shallow copy of each entry:
   * `apply` changes an entry's own fields (status, result, attempts) and replaces, never changes,
   * the objects they hold, so a copy keeps the state the journal held at the snapshot while the
   * rewrite converts and writes it in slices (AppendJournal.rewrite).
   */
  async compact(): Promise<void> {
    if (this.compacting) return this.compacting;
    let before = new Set<string>();
    this.compacting = this.journal
      .rewrite(
        () => {
          this.inputBytes = 0;
          this.inputsRemoved = false;
          // The new file holds the PENDING requests' documents, and those of the lines written
          // meanwhile (added as they come); the old one, until the swap, all of these.
          before = this.inputsInFile;
          this.inputsInFile = new Set(this.inputs.keys());
          return this.live().map((e) => ({ e: { ...e }, input: this.inputs.get(e.requestId) }));
        },
        ({ e, input }) => ({ t: 'c', e: toStored(e), ...(input === undefined ? {} : { input }) }),
      )
      .catch((error: unknown) => {
        // The old file stays in use, with every document it held.
        for (const id of before) this.inputsInFile.add(id);
        this.inputsRemoved ||= [...before].some((id) => !this.byId.has(id));
        throw error;
      })
      .finally(() => (this.compacting = null));
    return this.compacting;
  }

  /** The documents journaled with PENDING requests (after a restart: their jobs read them from the document store). */
  journaledInputs(): [string, Buffer][] {
    return [...this.inputs].map(([id, base64]) => [id, Buffer.from(base64, 'base64')]);
  }

  private live(): RequestEntry[] {
    return this.order.filter((e): e is RequestEntry => e !== null);
  }

  /** Bytes of the results `wrapperKey` has on disk (a PAdES result's PDF; an EVM result is a few bytes in the journal). */
  resultBytesOf(wrapperKey: string): number {
    return this.resultBytes.get(wrapperKey) ?? 0;
  }

  private countResult(e: RequestEntry, sign: 1 | -1): void {
    const bytes = e.status === 'DONE' && typeof e.result?.bytes === 'number' ? e.result.bytes : 0;
    if (!e.wrapperKey || bytes === 0) return;
    const total = (this.resultBytes.get(e.wrapperKey) ?? 0) + sign * bytes;
    if (total > 0) this.resultBytes.set(e.wrapperKey, total);
    else this.resultBytes.delete(e.wrapperKey);
  }

  private apply(rec: JournalRecord): void {
    switch (rec.t) {
      case 'c':
        if (!this.byId.has(rec.e.requestId)) {
          this.byId.set(rec.e.requestId, rec.e);
          this.order.push(rec.e);
          // A compacted journal writes a DONE entry as it stands: its result counts from here.
          this.countResult(rec.e, 1);
          if (rec.input !== undefined) this.inputsInFile.add(rec.e.requestId);
          if (rec.input !== undefined && rec.e.status === 'PENDING') this.inputs.set(rec.e.requestId, rec.input);
        }
        break;
      case 'd': {
        const e = this.byId.get(rec.id);
        // First final transition wins, on replay exactly as at run time.
        if (e && e.status === 'PENDING') {
          Object.assign(e, { status: 'DONE', completedAt: rec.at, result: rec.result } satisfies Partial<RequestEntryBase>);
          this.countResult(e, 1);
          this.inputs.delete(rec.id);
        }
        break;
      }
      case 'x': {
        const e = this.byId.get(rec.id);
        if (e && e.status === 'PENDING') {
          Object.assign(e, { status: 'ERROR', completedAt: rec.at, error: rec.error, errorId: rec.error_id } satisfies Partial<RequestEntryBase>);
          this.inputs.delete(rec.id);
        }
        break;
      }
      case 'a': {
        const e = this.byId.get(rec.id);
        if (e && e.status === 'PENDING') e.attempts = attemptsOf(e) + 1;
        break;
      }
      case 'p': {
        const e = this.byId.get(rec.id);
        if (e && e.status === 'PENDING') e.attempts = Math.max(0, attemptsOf(e) - 1);
        break;
      }
      case 'rm': {
        // One pass over the order for the whole batch (retention can drop thousands at start-up;
        // an indexOf per id made that quadratic).
        const gone = new Set<RequestEntry>();
        for (const id of rec.ids) {
          const e = this.byId.get(id);
          if (!e) continue;
          this.byId.delete(id);
          this.inputs.delete(id);
          if (this.inputsInFile.has(id)) this.inputsRemoved = true;
          this.countResult(e, -1);
          gone.add(e);
        }
        for (let i = 0; i < this.order.length && gone.size > 0; i += 1) {
          const e = this.order[i];
          if (e && gone.delete(e)) {
            this.order[i] = null;
            this.removed += 1;
          }
        }
        if (this.removed > 1024 && this.removed > this.order.length / 2) {
          this.order = this.live();
          this.removed = 0;
        }
        break;
      }
    }
  }

  /** Durable first, then visible: a status a caller has read survives a crash. */
  private async record(rec: JournalRecord): Promise<void> {
    await this.journal.append(rec.t === 'c' ? { ...rec, e: toStored(rec.e) } : rec);
    this.apply(rec);
    const due = this.journal.lineCount > 3 * this.byId.size + 2048 || this.inputBytes > COMPACT_AFTER_INPUT_BYTES || this.inputsRemoved;
    if (due && this.journal.lineCount > this.compactAfter) {
      // A compaction that fails (a full disk, a file held on Windows) leaves the old journal whole
      // and in use: it is tried again once as many lines more have been written, not at every one.
      void this.compact().catch(() => (this.compactAfter = this.journal.lineCount + 2048));
    }
  }

  get(id: string): RequestEntry | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Newest first; creation order breaks ties (CONTRACT GET /v1/results). Lazy: O(what is read). */
  *newestFirst(): Generator<RequestEntry> {
    for (let i = this.order.length - 1; i >= 0; i -= 1) {
      const e = this.order[i];
      if (e) yield e;
    }
  }

  list(limit: number): RequestEntry[] {
    const out: RequestEntry[] = [];
    for (const e of this.newestFirst()) {
      if (out.length >= limit) break;
      out.push(e);
    }
    return out;
  }

  pending(): RequestEntry[] {
    return this.live().filter((e) => e.status === 'PENDING');
  }

  /** Oldest first; used by retention. */
  oldest(): RequestEntry[] {
    return this.live();
  }

  /**
   * A new PENDING request, durable when this resolves; with `input`, its document too, in the same
   * record (see `inputs`).
   */
  create(entry: RequestEntry, input?: Uint8Array): Promise<void> {
    if (input === undefined) return this.record({ t: 'c', e: entry });
    const base64 = Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('base64');
    this.inputBytes += base64.length;
    return this.record({ t: 'c', e: entry, input: base64 });
  }

  markDone(id: string, at: string, result: Record<string, unknown>): Promise<void> {
    return this.record({ t: 'd', id, at, result });
  }

  markError(id: string, at: string, error: string, errorId: string): Promise<void> {
    return this.record({ t: 'x', id, at, error, error_id: errorId });
  }

  /** Durable before it resolves: the job it announces may take the process down with it. */
  recordAttempt(id: string, at: string): Promise<void> {
    return this.record({ t: 'a', id, at });
  }

  releaseAttempt(id: string, at: string): Promise<void> {
    return this.record({ t: 'p', id, at });
  }

  /** Drops entries from the journal (retention); their files are the document store's. */
  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.record({ t: 'rm', ids });
  }

  drain(): Promise<void> {
    return this.journal.drain();
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
