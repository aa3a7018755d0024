// Resident memory of a process and the processes below it, read from outside (Linux /proc): what
// the machine gives the service with its PDF worker processes. Plain JavaScript so that both
// `npm run bench` (node, no TypeScript) and the vitest helpers use the one reading.
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

/**
 * VmRSS / VmHWM of a process, and of the resident memory the anonymous part (heaps, stacks) and
 * the file-backed part (pages of the program's files, which the kernel may drop), MiB.
 */
export function memoryMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(m[1]);
  };
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024, anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
}

/** The process and every process below it (field 4 of /proc/PID/stat, after the parenthesised command). */
export function tree(pid) {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* ended */
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [child, parent] of parents) if (parent === out[i]) out.push(child);
  return out;
}

/** VmRSS of `pid` with every process below it, MiB (a process that ended meanwhile counts 0). */
export function treeRssMiB(pid) {
  let total = 0;
  for (const p of tree(pid)) {
    try {
      total += memoryMiB(p).rss;
    } catch {
      /* ended */
    }
  }
  return total;
}

/**
 * The proportional set size (Pss, /proc/PID/smaps_rollup) of `pid` with every process below it,
 * MiB: a page that n processes map counts 1/n in each, where VmRSS counts it whole in each. The n
 * includes processes outside the tree (another Node program maps the same runtime as the bundle's
 * processes, the bench itself among them), so the sum is below what the tree alone holds; see
 * treeUniqueMiB. Null where the kernel has no smaps_rollup (before Linux 4.14).
 */
export function treePssMiB(pid) {
  let total = 0;
  for (const p of tree(pid)) {
    let text;
    try {
      text = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
    } catch (error) {
      if (error && error.code === 'ENOENT' && p === pid) return null;
      continue; /* ended */
    }
    const m = /^Pss:\s+(\d+) kB/m.exec(text);
    if (m) total += Number(m[1]) / 1024;
  }
  return total;
}

/**
 * The physical pages resident in `pid` and every process below it, each counted once however many
 * of them map it (the Node runtime's text, mapped by the service and its PDF worker alike), MiB:
 * the page frames of /proc/PID/pagemap (Documentation/admin-guide/mm/pagemap.rst) for every mapping
 * with resident pages. Null where the frames are hidden: the kernel shows them to a process with
 * CAP_SYS_ADMIN only (root outside a container), and reads 0 otherwise.
 */
export function treeUniqueMiB(pid) {
  const PAGE = 4096n;
  const frames = new Set();
  for (const p of tree(pid)) {
    let smaps;
    let fd;
    try {
      smaps = readFileSync(`/proc/${p}/smaps`, 'utf8');
      fd = openSync(`/proc/${p}/pagemap`, 'r');
    } catch {
      continue; /* ended */
    }
    try {
      let range = null;
      for (const line of smaps.split('\n')) {
        const head = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
        if (head) {
          range = [BigInt(`0x${head[1]}`), BigInt(`0x${head[2]}`)];
          continue;
        }
        if (!range || !line.startsWith('Rss:') || /^Rss:\s+0 kB/.test(line)) continue;
        const pages = Number((range[1] - range[0]) / PAGE);
        const entries = Buffer.alloc(pages * 8);
        readSync(fd, entries, 0, entries.length, Number((range[0] / PAGE) * 8n));
        for (let i = 0; i < pages; i++) {
          const entry = entries.readBigUInt64LE(i * 8);
          if (!(entry >> 63n)) continue; // not present
          const frame = entry & ((1n << 55n) - 1n);
          if (frame === 0n) return null;
          frames.add(frame);
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  return (frames.size * Number(PAGE)) / 1048576;
}

/**
 * Samples treeRssMiB every 20 ms until `stop()`, which gives the peak: the process's own VmHWM
 * or the tree's resident memory at the sample where the sum was highest, whichever is larger (a
 * PDF worker that read a large document, or was killed at its limit, takes its VmHWM with it).
 */
export function sampleTreePeak(pid) {
  let peak = treeRssMiB(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssMiB(pid));
  }, 20);
  return {
    /** The peak, MiB; NaN when the process itself has ended (its VmHWM went with it). */
    stop() {
      clearInterval(timer);
      try {
        return Math.max(peak, memoryMiB(pid).peak);
      } catch {
        return Number.NaN;
      }
    },
  };
}
