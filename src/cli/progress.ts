/**
 * One line on a terminal that says what the command waits for (a phone approval can take
 * minutes): redrawn in place, erased when done. Nothing at all when stderr is not a terminal, so
 * scripts and logs get only the result.
 */
export interface Progress {
  update(text: string): void;
  stop(): void;
}

const FRAMES = ['|', '/', '-', '\\'];

export function startProgress(text: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update: () => undefined, stop: () => undefined };
  const started = Date.now();
  let current = text;
  let frame = 0;
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    const line = `${FRAMES[frame++ % FRAMES.length]} ${current} (${seconds} s)`;
    // \r and "erase line" (ECMA-48 EL, CSI 2 K): the line is rewritten, not appended.
    stream.write(`\r\u001b[2K${line.slice(0, Math.max(10, (stream.columns || 80) - 1))}`);
  };
  draw();
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    update(next) {
      current = next;
      draw();
    },
    stop() {
      clearInterval(timer);
      stream.write('\r\u001b[2K');
    },
  };
}
