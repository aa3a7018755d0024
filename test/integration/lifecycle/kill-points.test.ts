import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { readCatalog, runLoad, settle, type Accepted, type Catalog } from './_load';

/**
 * Issue 10, resilience: SIGKILL during sustained mixed load, several times at different points,
 * each time restarting on the same config dir. After every kill the stores parse (at most the
 * line the kill tore is unreadable), and at the end no acknowledged request is lost or stuck,
 * none is audited twice, and no result read as DONE has changed. Kill points: during the load
 * after different delays, and as soon as the service listens (while it resumes the backlog).
 * Bounded: four rounds of at most a few seconds each.
 */
const KILL_AFTER_MS = [700, 0, 250, 1200];
const STOPPED = 'the service stopped while signing this request';

const tmp = makeTmpHome('localsign-kill-points-');
const home = tmp.home;
let creds: { key: string; secret: string };
let svc: ServiceProcess | undefined;
let catalog: Catalog | undefined;
const accepted: Accepted[] = [];
/** The body of every result first read as DONE: it must never change. */
const doneBodies = new Map<string, string>();

beforeAll(() => {
  creds = initEmbeddedWithWrapper(home);
});
afterAll(async () => {
  await svc?.stop();
  tmp.cleanup();
});

/** Lines of a store file that do not parse (a kill may tear the line being written). */
function unreadable(name: string): string[] {
  return readFileSync(join(home, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
}

/** Reads each acknowledged request; DONE bodies are remembered the first time and compared after. */
async function checkDoneUnchanged(call: ReturnType<typeof authed>): Promise<void> {
  for (const a of accepted) {
    const res = await call(`/v1/results/${a.id}`);
    expect(res.status, `${a.id} is known`).toBe(200);
    const text = await res.text();
    if ((JSON.parse(text) as { status: string }).status !== 'DONE') continue;
    const before = doneBodies.get(a.id);
    if (before === undefined) doneBodies.set(a.id, text);
    else expect(text === before, `${a.id}: its DONE result changed after a restart`).toBe(true);
  }
}

/** Resolves once one of `live` reads DONE (bounded: the kill happens anyway after 20 s). */
async function anyDone(call: ReturnType<typeof authed>, live: Accepted[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { results } = (await (await call('/v1/results?limit=1000')).json()) as { results: { request_id: string; status: string }[] };
    const ids = new Set(live.map((a) => a.id));
    if (results.some((r) => ids.has(r.request_id) && r.status === 'DONE')) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once `live` holds `n` acknowledged requests (bounded: the kill happens anyway after 20 s). */
async function someAccepted(live: Accepted[], n: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (live.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe('SIGKILL at several points of a mixed load', () => {
  KILL_AFTER_MS.forEach((killAfter, round) => {
    it(`round ${round + 1}: kill -9 ${killAfter === 0 ? 'as soon as it listens' : `${killAfter} ms into the load`}, then the stores parse`, async () => {
      const tornAudit = round === 0 ? 0 : unreadable('audit.jsonl').length;
      const tornJournal = round === 0 ? 0 : unreadable('requests.jsonl').length;
      svc = await startServiceProcess({ home, args: ['--workers', '1'] });
      const call = authed(svc.url, creds);
      catalog ??= await readCatalog(call);
      // Nothing acknowledged before is lost, and nothing read as DONE has changed.
      if (killAfter > 0) await checkDoneUnchanged(call);
      // The first round also waits for a first DONE (on a loaded machine the first PDF, which loads
      // the engine, can take longer than the delay), so later rounds have DONE results to compare.
      const live: Accepted[] = [];
      // Rounds killed during the load also wait for a few acknowledged requests: on a loaded CI
      // machine a few hundred ms once acknowledged none, and the rounds together fewer than the
      // final check needs.
      const killed = new Promise((r) => setTimeout(r, killAfter))
        .then(() => (round === 0 ? anyDone(call, live) : killAfter > 0 ? someAccepted(live, 6) : undefined))
        .then(() => svc!.child.kill('SIGKILL'));
      const load = await runLoad(call, catalog, { clients: 8, until: killed, accepted: live });
      accepted.push(...load.accepted);
      await svc.stop();
      expect(svc.child.signalCode).toBe('SIGKILL');
      // The journal is compacted soon after each start (torn lines dropped; a kill as soon as it
      // listens comes before that); audit.jsonl never is. Each kill tears at most one line.
      expect(unreadable('requests.jsonl').length).toBeLessThanOrEqual(tornJournal + 1);
      expect(unreadable('audit.jsonl').length).toBeLessThanOrEqual(tornAudit + 1);
      // Every 202 was sent once its record was durable.
      const journal = readFileSync(join(home, 'requests.jsonl'), 'utf8');
      expect(load.accepted.filter((a) => !journal.includes(`"request_id":"${a.id}"`))).toEqual([]);
    });
  });

  it('after the last restart no request is lost or stuck, none is audited twice, no DONE result changed', async () => {
    // Results read as DONE between the kills, compared again below (the check is not empty).
    expect(doneBodies.size).toBeGreaterThan(0);
    svc = await startServiceProcess({ home, args: ['--workers', '1'] });
    const call = authed(svc.url, creds);
    expect(accepted.length).toBeGreaterThan(10);
    const statuses = await settle(call, accepted.map((a) => a.id), 60_000);
    expect([...statuses.entries()].filter(([, s]) => s !== 'DONE' && s !== 'ERROR')).toEqual([]);
    // ERROR only for a request two kills cut short while it was being signed (crash-loop guard).
    for (const [id, s] of statuses) {
      if (s === 'ERROR') expect(await (await call(`/v1/results/${id}`)).json()).toMatchObject({ status: 'ERROR', error: STOPPED });
    }
    await checkDoneUnchanged(call);
    const audit = readFileSync(join(home, 'audit.jsonl'), 'utf8')
      .split('\n')
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as { request_id: string; outcome: string }];
        } catch {
          return [];
        }
      });
    const doneAudits = new Map<string, number>();
    for (const r of audit.filter((x) => x.outcome === 'DONE')) doneAudits.set(r.request_id, (doneAudits.get(r.request_id) ?? 0) + 1);
    expect([...doneAudits.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(accepted.filter((a) => statuses.get(a.id) === 'DONE' && !doneAudits.has(a.id)).map((a) => a.id)).toEqual([]);
    expect(await svc.stop()).toBe(0);
  });
});
