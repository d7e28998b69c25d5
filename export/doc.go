// Package export writes what blockwarc knows in the formats other tools
// read: Parquet/Arrow tables for notebooks, WARC files re-exported from the
// archive, and CDXJ indexes for replay tools.
//
// CDXJ. A CDXJ index has one line per capture,
//
//	urlkey timestamp {"url":…,"mime":…,"status":…,"digest":…,"length":…,"offset":…,"filename":…}
//
// where urlkey is warcio.SURT of the URL, timestamp the 14-digit WARC-Date,
// and the JSON block locates the record in its WARC file (offset and length
// as stored, compressed). pywb, OutbackCDX and Common Crawl read it. The
// CDXJIndexer feeds on captures in the order warcio.Walk yields them and
// makes the same choices as webrecorder's warcio.js cdx-index, so the two
// indexes of one file agree line for line:
//
//	ix := export.NewCDXJIndexer(func(e *export.CDXJEntry) error {
//		_, err := out.Write(e.AppendTo(buf[:0]))
//		return err
//	})
//	stats, err := warcio.Walk(ctx, inputs, opts, ix.Add)
//	...
//	err = ix.Flush()
//
// WARC re-export. WriteWARC writes the records of an archive (package
// dedupe) as a WARC file with one gzip member per record, in capture order
// per URL, each record byte-identical to the one ingested. ARC records have
// no byte-identical WARC form: they are counted in WARCStats.NotWARC and
// left out.
package export
