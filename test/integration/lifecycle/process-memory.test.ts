import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryMiB, tree, treeRssMiB, treeUniqueMiB } from '../../helpers/process-memory.mjs';

// The bench's memory rows (test/bench/run.mjs treeResident) count a service with its workers by
// their resident pages, each once. Checked here on a tree of real processes: a Node parent with two
// Node children maps the Node runtime three times.
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) {
    // The grandchildren first: they outlive a killed parent.
    for (const pid of tree(c.pid!).reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* ended */
      }
    }
  }
});

/** Whether this process holds CAP_SYS_ADMIN (bit 21 of CapEff in /proc/self/status). */
function hasSysAdmin(): boolean {
  const capEff = /^CapEff:\s*([0-9a-f]+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return capEff !== null && ((BigInt(`0x${capEff[1]}`) >> 21n) & 1n) === 1n;
}

const keepAlive = "setInterval(() => {}, 1000); process.send?.('up')";

describe('treeUniqueMiB (resident pages of a process tree, each counted once)', () => {
  it('counts the pages the processes share once: between the largest process and the VmRSS sum', async () => {
    const parent = spawn(process.execPath, ['-e', `const { spawn } = require('node:child_process'); for (let i = 0; i < 2; i++) spawn(process.execPath, ['-e', ${JSON.stringify(keepAlive)}], { stdio: 'ignore' }); ${keepAlive}`], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    children.push(parent);
    await new Promise((resolve) => parent.once('message', resolve));
    for (let i = 0; i < 100 && tree(parent.pid!).length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    const pids = tree(parent.pid!);
    expect(pids).toHaveLength(3);
    // Until the children have started: their VmRSS no longer grows from one look to the next.
    for (let i = 0, last = 0; i < 30; i++) {
      const now = treeRssMiB(parent.pid!);
      if (Math.abs(now - last) < now * 0.02) break;
      last = now;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The children may still be starting: read VmRSS before and after the count, so that a process
    // that grows meanwhile only makes the bounds easier.
    const before = pids.map((pid) => memoryMiB(pid).rss);
    const unique = treeUniqueMiB(parent.pid!);
    // Frames hidden: only to a process without CAP_SYS_ADMIN (pagemap.rst), as in a container.
    if (unique === null) return void expect(hasSysAdmin()).toBe(false);
    const summedAfter = treeRssMiB(parent.pid!);
    expect(unique).toBeGreaterThanOrEqual(Math.max(...before) * 0.9);
    // Three Node processes share the runtime's text: counted once, well below the sum (about half).
    expect(unique).toBeLessThan(summedAfter * 0.7);
  });
});
