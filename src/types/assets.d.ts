// Binary assets bundled into the executable (esbuild `binary` loader; the vitest plugin mirrors it).
declare module '*.ttf' {
  const bytes: Uint8Array;
  export default bytes;
}
