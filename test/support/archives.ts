/**
 * Archives written exactly as a test needs them, hostile ones included: tar header by header (no
 * sanitising), zip through yazl, and zips whose entry names are patched afterwards.
 */
import { gzipSync } from "node:zlib";
import yazl from "yazl";

export interface TarEntry {
  name: string;
  /** '0' file, '1' hard link, '2' symlink, '5' directory, '3'/'4'/'6' devices and FIFOs. */
  type?: string;
  body?: string | Buffer;
  linkname?: string;
  mode?: number;
}

const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, "0") + "\0";

/** A tar stream written header by header (no sanitising: hostile entries come out as written). */
export function tarBuffer(entries: TarEntry[], gzip = true): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? "");
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, "utf8");
    h.write(octal(e.mode ?? (e.type === "5" ? 0o755 : 0o644), 8), 100);
    h.write(octal(0, 8), 108);
    h.write(octal(0, 8), 116);
    h.write(octal(body.length, 12), 124);
    h.write(octal(1_700_000_000, 12), 136);
    h.fill(" ", 148, 156);
    h.write(e.type ?? "0", 156);
    h.write(e.linkname ?? "", 157, 100, "utf8");
    h.write("ustar\0", 257);
    h.write("00", 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(octal(sum, 7) + " ", 148);
    blocks.push(h, body);
    if (body.length % 512 !== 0) blocks.push(Buffer.alloc(512 - (body.length % 512)));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return gzip ? gzipSync(tar) : tar;
}

export function zipBuffer(entries: [string, string | Buffer, number?][]): Promise<Buffer> {
  return new Promise((resolve) => {
    const z = new yazl.ZipFile();
    for (const [name, data, mode] of entries) z.addBuffer(Buffer.from(data), name, mode === undefined ? {} : { mode });
    const chunks: Buffer[] = [];
    z.outputStream.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks)));
    z.end();
  });
}

/** A zip whose entry names contain `from` rewritten to `to` (yazl refuses `../`; names are not checksummed). */
export async function zipWithName(entries: [string, string][], from: string, to: string): Promise<Buffer> {
  if (from.length !== to.length) throw new Error("the names must have the same length");
  const z = await zipBuffer(entries);
  return Buffer.from(z.toString("latin1").replaceAll(from, to), "latin1");
}
