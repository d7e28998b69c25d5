// Opens blockwarc's Parquet tables with DuckDB (@duckdb/node-api), an
// independent reader, and prints JSON facts about them for the Go test
// cmd/blockwarc/tables_test.go to assert on.
//
// usage: node duckdb-check.mjs INPUT.json
// INPUT.json: {"tables": DIR, "setup": [SQL...], "examples": [SQL...]}
//   setup:    statements run first (the views of docs/TABLES.md, already
//             pointed at DIR by the test)
//   examples: the example queries of docs/TABLES.md
// Output on stdout: {"checks": {...}, "html": [[url, epoch_us, digest]...],
//                    "examples": [{"rows": n, "columns": [...], "first": {...}}]}
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
// No network: never try to fetch an extension.
const db = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
});
const con = await db.connect();
await con.run("SET TimeZone = 'UTC'");

async function rows(sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRowObjectsJson();
}
async function one(sql) {
  const r = await rows(sql);
  return Object.values(r[0])[0];
}

for (const sql of input.setup) {
  await con.run(sql);
}

const checks = {};
for (const t of ['captures', 'blocks', 'capture_blocks', 'changes', 'urls']) {
  checks[`${t}_rows`] = Number(await one(`SELECT count(*) FROM ${t}`));
}
// Every capture's block list rebuilt from capture_blocks: as many rows
// as blocks_total, ordinals 1..n, every block in the blocks table.
checks.captures_with_blocks = Number(await one(`SELECT count(*) FROM captures WHERE blocks_total > 0`));
checks.blocks_total_mismatch = Number(await one(`
  SELECT count(*) FROM captures c
  LEFT JOIN (SELECT url_surtkey, version, count(*) AS n FROM capture_blocks GROUP BY ALL) cb
    USING (url_surtkey, version)
  WHERE c.blocks_total <> coalesce(cb.n, 0)`));
checks.capture_blocks_without_capture = Number(await one(`
  SELECT count(*) FROM capture_blocks cb ANTI JOIN captures c USING (url_surtkey, version)`));
checks.capture_blocks_bad_ordinals = Number(await one(`
  SELECT count(*) FROM (
    SELECT url_surtkey, version, count(*) AS n, count(DISTINCT ordinal) AS d, min(ordinal) AS lo, max(ordinal) AS hi
    FROM capture_blocks GROUP BY ALL)
  WHERE d <> n OR lo <> 1 OR hi <> n`));
checks.capture_blocks_unknown_block = Number(await one(`
  SELECT count(*) FROM capture_blocks cb ANTI JOIN blocks b USING (block_no)`));
checks.capture_blocks_unknown_predecessor = Number(await one(`
  SELECT count(*) FROM capture_blocks cb ANTI JOIN blocks b ON b.block_no = cb.predecessor_block_no
  WHERE cb.predecessor_block_no IS NOT NULL`));
checks.links_unknown_block = Number(await one(`
  SELECT count(*) FROM links l ANTI JOIN capture_blocks cb USING (url_surtkey, block_no)`));
checks.capture_blocks_fetch_time_mismatch = Number(await one(`
  SELECT count(*) FROM capture_blocks cb JOIN captures c USING (url_surtkey, version)
  WHERE cb.fetch_time <> c.fetch_time`));
checks.blocks_unreferenced = Number(await one(`
  SELECT count(*) FROM blocks b ANTI JOIN capture_blocks cb USING (block_no)`));
checks.blocks_counts_mismatch = Number(await one(`
  SELECT count(*) FROM blocks b JOIN (
    SELECT block_no, count(DISTINCT (url_surtkey, version)) AS caps, count(DISTINCT url_surtkey) AS urls
    FROM capture_blocks GROUP BY ALL) x USING (block_no)
  WHERE b.captures <> x.caps OR b.urls <> x.urls`));
checks.duplicate_block_ids = Number(await one(`
  SELECT count(*) - count(DISTINCT block_id) FROM blocks`));
// block_no numbers the blocks 1..n in table order.
checks.block_no_not_row_number = Number(await one(`
  SELECT count(*) FROM (SELECT block_no, row_number() OVER () AS n FROM blocks) WHERE block_no <> n`));
// changes against captures: one row per successive pair, changed equal.
// Records about the crawl (url_protocol not http(s)) have captures rows
// only: no changes, no urls row.
checks.web_captures_rows = Number(await one(`SELECT count(*) FROM captures WHERE url_protocol IN ('http', 'https')`));
checks.captures_after_first = Number(await one(`
  SELECT count(*) FROM captures WHERE version > 1 AND url_protocol IN ('http', 'https')`));
checks.changes_changed_mismatch = Number(await one(`
  SELECT count(*) FROM changes ch JOIN captures c
    ON c.url_surtkey = ch.url_surtkey AND c.version = ch.to_version
  WHERE c.changed IS DISTINCT FROM ch.changed OR c.fetch_time <> ch.to_time`));
checks.changes_without_capture = Number(await one(`
  SELECT count(*) FROM changes ch ANTI JOIN captures c
    ON c.url_surtkey = ch.url_surtkey AND c.version = ch.to_version`));
checks.changes_changed = Number(await one(`SELECT count(*) FROM changes WHERE changed`));
checks.first_captures_changed_not_null = Number(await one(`
  SELECT count(*) FROM captures WHERE version = 1 AND changed IS NOT NULL`));
checks.urls_captures_mismatch = Number(await one(`
  SELECT count(*) FROM urls u JOIN (SELECT url_surtkey, count(*) AS n FROM captures GROUP BY ALL) c
    USING (url_surtkey) WHERE u.captures <> c.n`));

// The HTML captures as the corpus manifest lists them: 200 text/html
// responses.
const html = (await rows(`
  SELECT url, epoch_us(fetch_time) AS t, content_digest AS d FROM captures
  WHERE warc_type = 'response' AND fetch_status = 200 AND content_mime_type = 'text/html'
  ORDER BY url, fetch_time`)).map((r) => [r.url, String(r.t), r.d]);

const examples = [];
for (const sql of input.examples) {
  const r = await con.runAndReadAll(sql);
  const objs = r.getRowObjectsJson();
  examples.push({ rows: objs.length, columns: r.columnNames(), first: objs[0] ?? null });
}

process.stdout.write(JSON.stringify({ checks, html, examples }) + '\n');
