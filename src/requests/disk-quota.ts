import { RateLimitedError } from '../domain/errors';

/**
 * The disk one application may fill (serve --disk-quota): the results it has on disk and the
 * audit records its signatures wrote in the last 24 hours. Without it one key's hash flood grew
 * audit.jsonl by about 1 GB an hour, and results/ kept 10,000 results whatever their size, for
 * everyone to run out of disk together. Beyond its quota an application's new sign requests are
 * refused (429 with Retry-After) until results expire or the day's audit records age out; other
 * applications are not affected. The audit file itself is never trimmed (CONTRACT: no API deletes
 * it): the quota bounds how fast one application makes it grow.
 */
export class DiskQuota {
  /** Per application: audit bytes per hour, keyed by the hour's number since the epoch. */
  private readonly audit = new Map<string, Map<number, number>>();

  constructor(
    /** Bytes per application; 0: no quota. */
    readonly limitBytes: number,
    private readonly resultBytesOf: (wrapperKey: string) => number,
  ) {}

  /** An audit record of `bytes` written for `wrapperKey` at `at` (ms since the epoch). */
  addAudit(wrapperKey: string | null, bytes: number, at: number): void {
    if (!wrapperKey) return;
    const hours = this.audit.get(wrapperKey) ?? new Map<number, number>();
    const hour = Math.floor(at / HOUR_MS);
    hours.set(hour, (hours.get(hour) ?? 0) + bytes);
    this.audit.set(wrapperKey, hours);
  }

  /** Bytes `wrapperKey` holds now: its results, and its audit records of the last 24 hours. */
  usedBy(wrapperKey: string, now: number): number {
    const hours = this.audit.get(wrapperKey);
    let audit = 0;
    if (hours) {
      for (const [hour, bytes] of hours) {
        if (inWindow(hour, now)) audit += bytes;
        else hours.delete(hour);
      }
      if (hours.size === 0) this.audit.delete(wrapperKey);
    }
    return this.resultBytesOf(wrapperKey) + audit;
  }

  /**
   * Whether an audit record written at `at` counts at `now` (both ms since the epoch): the audit
   * log reads its file back from the end only as far as records that still count.
   */
  static counts(at: number, now: number): boolean {
    return inWindow(Math.floor(at / HOUR_MS), now);
  }

  /** Refuses a new request of `wrapperKey` (429) while it is over its quota. */
  check(wrapperKey: string, now: number): void {
    if (this.limitBytes === 0) return;
    const used = this.usedBy(wrapperKey, now);
    if (used < this.limitBytes) return;
    throw new RateLimitedError(
      `this application key holds ${mib(used)} MiB of results and of the last 24 hours' audit records, its disk quota is ${mib(this.limitBytes)} MiB (serve --disk-quota): read and let results expire, or ask the operator for a larger quota`,
      RETRY_AFTER_SECONDS,
    );
  }
}

const HOUR_MS = 3_600_000;
const WINDOW_HOURS = 24;
/** The last 24 hours at `now`, in whole hours: the current one and the 23 before it. */
const inWindow = (hour: number, now: number) => hour > Math.floor(now / HOUR_MS) - WINDOW_HOURS;
/** Results expire and audit hours age out over minutes to hours: an hour is as good as any. */
const RETRY_AFTER_SECONDS = 600;
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
