package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// TestTablesCommonCrawlColumns: on ota-lovescout24 (two pages served on
// port 8103, 24 captures each, and wget's metadata:// records), DuckDB
// finds Common Crawl's url_protocol and url_port, and urls rows whose
// change rate comes with the documented 95 % interval: its ends are where
// the log-likelihood of the URL's changes rows, computed here in SQL, is
// 3.84/2 below the MLE's.
func TestTablesCommonCrawlColumns(t *testing.T) {
	site := sharedtest.Dir(t, "corpus", "ota-lovescout24")
	arch := filepath.Join(t.TempDir(), "site.bwa")
	if code, errs := runCLI(t, "ingest", arch, site); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	tdir := filepath.ToSlash(filepath.Join(arch, "tables"))
	out := duckQuery(t, []string{
		"CREATE VIEW captures AS SELECT * FROM read_parquet('" + tdir + "/captures/*.parquet')",
		"CREATE VIEW urls AS SELECT * FROM read_parquet('" + tdir + "/urls/*.parquet')",
	}, map[string]string{
		"ports": `SELECT url_protocol, count(*) AS n, count(*) FILTER (WHERE url_port = 8103) AS p8103,
			count(*) FILTER (WHERE url_port IS NULL) AS noport
			FROM captures GROUP BY url_protocol ORDER BY url_protocol`,
		"changes": "SELECT count(*) AS n FROM read_parquet('" + tdir + "/changes/*.parquet') WHERE url NOT LIKE 'http%'",
		// The log-likelihood of a rate over the URL's changes rows, at
		// the MLE and at the interval's ends: the ends lie 3.84/2 below.
		"rates": `WITH u AS (
			  SELECT url, url_surtkey, url_port, captures, observed_changes AS x, change_rate_per_day AS rate,
			         change_rate_low_per_day AS low, change_rate_high_per_day AS high, change_rate_mle_per_day AS mle
			  FROM urls),
			l AS (
			  SELECT u.url_surtkey,
			         sum(CASE WHEN ch.changed THEN ln(1 - exp(-u.mle * ch.interval_days)) ELSE -u.mle * ch.interval_days END) AS at_mle,
			         sum(CASE WHEN ch.changed THEN ln(1 - exp(-u.low * ch.interval_days)) ELSE -u.low * ch.interval_days END) AS at_low,
			         sum(CASE WHEN ch.changed THEN ln(1 - exp(-u.high * ch.interval_days)) ELSE -u.high * ch.interval_days END) AS at_high
			  FROM u JOIN read_parquet('` + tdir + `/changes/*.parquet') ch USING (url_surtkey)
			  GROUP BY ALL)
			SELECT url, url_port, captures, x, rate, low, high, mle,
			       abs(at_low - (at_mle - 3.841458820694124 / 2)) < 1e-6 AND low < mle AS low_ok,
			       abs(at_high - (at_mle - 3.841458820694124 / 2)) < 1e-6 AND high > mle AS high_ok
			FROM u JOIN l USING (url_surtkey) ORDER BY url`,
	})
	n := func(v any) string { return fmt.Sprint(v) }
	ports := out["ports"]
	if len(ports) != 2 ||
		ports[0]["url_protocol"] != "http" || n(ports[0]["n"]) != "48" || n(ports[0]["p8103"]) != "48" ||
		ports[1]["url_protocol"] != "metadata" || n(ports[1]["n"]) != "48" || n(ports[1]["noport"]) != "48" {
		t.Errorf("captures by url_protocol with url_port: %v, want http 48 all on 8103, metadata 48 without a port", ports)
	}
	if c := out["changes"]; len(c) != 1 || n(c[0]["n"]) != "0" {
		t.Errorf("changes rows of wget's metadata:// records (24 captures each): %v, want none", c)
	}
	rates := out["rates"]
	if len(rates) != 2 {
		t.Fatalf("urls rows: %v, want the two pages only", rates)
	}
	for _, r := range rates {
		if n(r["url_port"]) != "8103" || n(r["captures"]) != "24" || r["rate"] == nil || r["low"] == nil {
			t.Errorf("urls row %v: want port 8103, 24 captures, a rate and its low bound", r)
		}
		if r["low_ok"] != true || r["high_ok"] != true {
			t.Errorf("urls row %v: interval is not the documented likelihood-ratio interval", r)
		}
	}

	// Two captures a URL: one interval, too few for a rate.
	files, err := filepath.Glob(filepath.Join(site, "*.warc.gz"))
	if err != nil || len(files) < 2 {
		t.Fatalf("inputs of %s: %v %v", site, files, err)
	}
	arch2 := filepath.Join(t.TempDir(), "two.bwa")
	if code, errs := runCLI(t, "ingest", arch2, files[0], files[1]); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	t2 := filepath.ToSlash(filepath.Join(arch2, "tables"))
	few := duckQuery(t, []string{}, map[string]string{
		"few": `SELECT count(*) AS urls, count(*) FILTER (WHERE mean_interval_days IS NOT NULL AND change_rate_per_day IS NULL
			AND change_rate_low_per_day IS NULL AND change_rate_high_per_day IS NULL AND p_change_7d IS NULL) AS unrated
			FROM read_parquet('` + t2 + `/urls/*.parquet') WHERE captures = 2`,
	})["few"]
	if len(few) != 1 || n(few[0]["urls"]) != "2" || n(few[0]["unrated"]) != "2" {
		t.Errorf("URLs of two captures, and those without a rate: %v, want 2 and 2", few)
	}
}
