/**
 * The checksum a Bom records for each file: POSIX cksum(1) (IEEE Std 1003.1, "cksum"): CRC-32 with
 * generator 0x04C11DB7, most significant bit first, no initial inversion, over the data and then
 * its length (least significant byte first, only as many bytes as it needs), inverted at the end.
 * `cksum FILE` prints the same number.
 */
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i += 1) {
    let c = i << 24;
    for (let k = 0; k < 8; k += 1) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function posixCksum(data: Uint8Array): number {
  let crc = 0;
  const step = (byte: number) => {
    crc = ((crc << 8) ^ TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  };
  for (let i = 0; i < data.length; i += 1) step(data[i]!);
  for (let n = data.length; n > 0; n = Math.floor(n / 256)) step(n % 256);
  return ~crc >>> 0;
}
