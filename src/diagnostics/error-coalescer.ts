/**
 * Which failures get a full record in errors.jsonl, and which are folded into one summary
 * (abuse: 80,000 unauthenticated bad requests would rotate every earlier record out of the error
 * history, and a flood of bad bodies would fill the rotation in minutes).
 *
 * - A failure of a request (an asynchronous ERROR, with its request id) is always recorded in full.
 * - Failures of one application key share a budget of full records (a token bucket: a burst of
 *   APP_BURST, refilled at APP_PER_MINUTE); beyond it they are coalesced.
 * - Failures with no authenticated application (bad credentials, a foreign Host, an unknown path,
 *   a malformed request) share one small budget among all of them (UNAUTH_BURST, refilled at
 *   UNAUTH_PER_HOUR): no stranger can make more than about a hundred full records an hour, so the
 *   records of real requests stay in the rotation however long a flood lasts.
 *
 * Coalesced failures are grouped by application, type and status; each group becomes one summary
 * record when it is `window` old: how many, first and last time, and a sample of their error ids.
 * The caller still gets an error_id for every failure (CONTRACT: every failure body carries one);
 * an application still sees each of its own in GET /v1/errors (the in-memory index keeps them).
 */
export const APP_BURST = 200;
export const APP_PER_MINUTE = 200;
export const UNAUTH_BURST = 100;
export const UNAUTH_PER_HOUR = 100;
/** Error ids kept in one summary; the rest are counted. */
export const SAMPLED_IDS = 50;
export const APP_WINDOW_MS = 60_000;
export const UNAUTH_WINDOW_MS = 10 * 60_000;

export interface Failure {
  error_id: string;
  ts: string;
  type: string;
  status: number | null;
  short: string;
  wrapper_key: string | null;
  request_id: string | null;
}

export interface CoalescedGroup {
  wrapper_key: string | null;
  type: string;
  status: number | null;
  /** The latest failure's message. */
  short: string;
  count: number;
  first_ts: string;
  last_ts: string;
  error_ids: string[];
  /** Ids counted but not listed (beyond SAMPLED_IDS). */
  error_ids_omitted: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

interface OpenGroup extends CoalescedGroup {
  openedAt: number;
}

export class ErrorCoalescer {
  private readonly buckets = new Map<string, Bucket>();
  private readonly groups = new Map<string, OpenGroup>();

  /** Whether `f` gets its full record; if not, it joins its group. `nowMs` from the recorder's clock. */
  admit(f: Failure, nowMs: number): boolean {
    if (f.request_id) return true;
    const unauth = f.wrapper_key === null;
    const bucketKey = f.wrapper_key ?? '';
    const burst = unauth ? UNAUTH_BURST : APP_BURST;
    const perMs = unauth ? UNAUTH_PER_HOUR / 3_600_000 : APP_PER_MINUTE / 60_000;
    const b = this.buckets.get(bucketKey) ?? { tokens: burst, at: nowMs };
    b.tokens = Math.min(burst, b.tokens + Math.max(0, nowMs - b.at) * perMs);
    b.at = nowMs;
    this.buckets.set(bucketKey, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return true;
    }
    const key = `${bucketKey}\u0000${f.type}\u0000${f.status ?? ''}`;
    const g = this.groups.get(key) ?? {
      wrapper_key: f.wrapper_key,
      type: f.type,
      status: f.status,
      short: f.short,
      count: 0,
      first_ts: f.ts,
      last_ts: f.ts,
      error_ids: [],
      error_ids_omitted: 0,
      openedAt: nowMs,
    };
    this.groups.set(key, g);
    g.count += 1;
    g.short = f.short;
    g.last_ts = f.ts;
    if (g.error_ids.length < SAMPLED_IDS) g.error_ids.push(f.error_id);
    else g.error_ids_omitted += 1;
    return false;
  }

  /** Groups whose window has passed (all of them with `all`), removed from the open set. */
  due(nowMs: number, all = false): CoalescedGroup[] {
    const out: CoalescedGroup[] = [];
    for (const [key, g] of this.groups) {
      const window = g.wrapper_key === null ? UNAUTH_WINDOW_MS : APP_WINDOW_MS;
      if (all || nowMs - g.openedAt >= window) {
        this.groups.delete(key);
        const { openedAt: _, ...group } = g;
        out.push(group);
      }
    }
    return out;
  }

  /** Buckets back at full burst carry no state worth keeping (bounds the map under key churn). */
  prune(nowMs: number): void {
    for (const [key, b] of this.buckets) {
      const burst = key === '' ? UNAUTH_BURST : APP_BURST;
      const perMs = key === '' ? UNAUTH_PER_HOUR / 3_600_000 : APP_PER_MINUTE / 60_000;
      if (b.tokens + (nowMs - b.at) * perMs >= burst) this.buckets.delete(key);
    }
  }
}
