// wacz-check.mjs FILE.wacz: reads a WACZ package with independent
// readers (yauzl for the ZIP, warcio.js for the WARC inside, node's
// crypto for the hashes) and prints one JSON object: the entries and
// their compression method, whether every resource of datapackage.json
// has the size and SHA-256 listed, whether datapackage-digest.json holds
// the SHA-256 of datapackage.json, the records warcio.js reads from each
// WARC with their offsets, and whether every CDXJ line of the index
// points at a record of its URL and date in its WARC.
import { createHash } from "node:crypto";
import yauzl from "yauzl";
import { WARCParser } from "warcio";

const path = process.argv[2];

function openZip(p) {
  return new Promise((resolve, reject) =>
    yauzl.open(p, { lazyEntries: true, autoClose: false }, (err, zip) => (err ? reject(err) : resolve(zip))));
}

function readEntry(zip, entry) {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(err);
      const chunks = [];
      stream.on("data", (c) => chunks.push(c));
      stream.on("end", () => resolve(Buffer.concat(chunks)));
      stream.on("error", reject);
    }));
}

const zip = await openZip(path);
const entries = new Map(); // name → { method, data }
await new Promise((resolve, reject) => {
  zip.on("entry", async (entry) => {
    try {
      entries.set(entry.fileName, { method: entry.compressionMethod, data: await readEntry(zip, entry) });
      zip.readEntry();
    } catch (e) {
      reject(e);
    }
  });
  zip.on("end", resolve);
  zip.on("error", reject);
  zip.readEntry();
});
zip.close();

const sha256 = (b) => "sha256:" + createHash("sha256").update(b).digest("hex");
const out = { entries: {}, resources: [], digestOK: false, warcs: {}, index: { lines: 0, matched: 0, bad: [] }, pages: [] };
for (const [name, e] of entries) out.entries[name] = { method: e.method, bytes: e.data.length };

const dp = JSON.parse(entries.get("datapackage.json").data.toString("utf8"));
out.wacz_version = dp.wacz_version;
for (const r of dp.resources) {
  const e = entries.get(r.path);
  out.resources.push({ path: r.path, listed: r.hash, bytesListed: r.bytes,
    ok: !!e && sha256(e.data) === r.hash && e.data.length === r.bytes });
}
const digest = JSON.parse(entries.get("datapackage-digest.json").data.toString("utf8"));
out.digestOK = digest.path === "datapackage.json" && digest.hash === sha256(entries.get("datapackage.json").data);

// Every WARC under archive/, read record by record.
for (const [name, e] of entries) {
  if (!name.startsWith("archive/")) continue;
  const parser = new WARCParser([new Uint8Array(e.data)]);
  const recs = [];
  let rec;
  while ((rec = await parser.parse())) {
    await rec.readFully();
    recs.push({ offset: parser.offset, length: parser.recordLength, type: rec.warcType,
      uri: rec.warcTargetURI || "", date: rec.warcDate || "" });
  }
  out.warcs[name] = recs;
}

// Each CDXJ line: its record, read by offset and length from its WARC.
const index = entries.get("indexes/index.cdx") || entries.get("indexes/index.cdxj");
for (const line of index.data.toString("utf8").split("\n")) {
  if (!line) continue;
  out.index.lines++;
  const sp = line.indexOf(" ", line.indexOf(" ") + 1);
  const ts = line.split(" ")[1];
  const j = JSON.parse(line.slice(sp + 1));
  const w = entries.get("archive/" + j.filename);
  if (!w) { out.index.bad.push(line); continue; }
  const off = Number(j.offset), len = Number(j.length);
  const parser = new WARCParser([new Uint8Array(w.data.subarray(off, off + len))]);
  const rec = await parser.parse();
  const date = rec && (rec.warcDate || "").replace(/[^0-9]/g, "").slice(0, 14);
  if (rec && rec.warcTargetURI === j.url && date === ts) out.index.matched++;
  else out.index.bad.push(line);
}

const pages = entries.get("pages/pages.jsonl").data.toString("utf8").split("\n").filter((l) => l);
out.pagesHeader = JSON.parse(pages[0]);
out.pages = pages.slice(1).map((l) => JSON.parse(l));
console.log(JSON.stringify(out));
