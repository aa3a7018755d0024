// Bundled and run by test/bench/run.mjs: time to draw one visible stamp (the default design's
// lines) into a fresh document, the largest part of a small stamped signature. Prints JSON.
import { PDFDocument } from 'pdf-lib';
import { drawStampAppearance } from '../../src/pades/stamp/stamp';

const stamp = {
  page: 'last' as const,
  x: 36,
  y: 36,
  width: 240,
  height: 72,
  lines: [
    { text: 'Digitally signed by Zoë Ñandú', size: 10 },
    { text: 'Date: 2026-11-22 10:00 UTC', size: 8 },
    { text: 'Reason: Approval', size: 8 },
    { text: 'Location: Madrid', size: 8 },
  ],
};

async function main(): Promise<void> {
  const draw = async () => drawStampAppearance(await PDFDocument.create(), stamp);
  for (let i = 0; i < 5; i += 1) await draw(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 30; i += 1) {
    const t = performance.now();
    await draw();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ p50: times[15], runs: times.length }));
}
void main();
