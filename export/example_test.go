package export_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/warcio"
)

// A CDXJ index of a WARC file, as blockwarc index writes it: Walk yields
// the captures in key order, keeping of each block what the indexer needs
// (CDXJKeep), and the indexer pairs requests with their responses, so a
// held entry is flushed when the key changes. (POST entries, keyed by
// their request body, would need re-sorting; this crawl has none.)
func ExampleNewCDXJIndexer() {
	in := filepath.Join("..", "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz")
	ix := export.NewCDXJIndexer(func(e *export.CDXJEntry) error {
		fmt.Print(string(e.AppendTo(nil)))
		return nil
	})
	key := ""
	_, err := warcio.Walk(context.Background(), []string{in}, warcio.WalkOptions{Keep: export.CDXJKeep}, func(c *warcio.Capture) error {
		if c.Key != key {
			if err := ix.Flush(); err != nil {
				return err
			}
			key = c.Key
		}
		return ix.Add(c)
	})
	if err == nil {
		err = ix.Flush()
	}
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1,0,0,127:8103)/lovescout24/community%20guidelines.html 20220120143355 {"url":"http://127.0.0.1:8103/LoveScout24/Community%20Guidelines.html","mime":"text/html","status":"200","digest":"SWRJ72QWONLRT4RGIZVTOHNXOL6RMI2H","length":"5044","offset":"1028","filename":"ota-lovescout24-20220120143355.warc.gz"}
	// 1,0,0,127:8103)/lovescout24/privacy%20policy.html 20220120143355 {"url":"http://127.0.0.1:8103/LoveScout24/Privacy%20Policy.html","mime":"text/html","status":"200","digest":"NYCL5D7DGNBZUIPGMPKZS4TVX4SUAZ7O","length":"12788","offset":"6493","filename":"ota-lovescout24-20220120143355.warc.gz"}
	// metadata://gnu.org/software/wget/warc/MANIFEST.txt 20220120143355 {"url":"metadata://gnu.org/software/wget/warc/MANIFEST.txt","mime":"text/plain","digest":"RVN2I3QTIFS3KW4V4GTBSZJR3B3DKZJI","length":"313","offset":"19281","filename":"ota-lovescout24-20220120143355.warc.gz"}
	// metadata://gnu.org/software/wget/warc/wget.log 20220120143355 {"url":"metadata://gnu.org/software/wget/warc/wget.log","mime":"text/plain","digest":"I4KCR63KAQVQBM2KVJD3M3QJ56AZK2GW","length":"527","offset":"20177","filename":"ota-lovescout24-20220120143355.warc.gz"}
	// metadata://gnu.org/software/wget/warc/wget_arguments.txt 20220120143355 {"url":"metadata://gnu.org/software/wget/warc/wget_arguments.txt","mime":"text/plain","digest":"RTZFS7WJKML2SZIMMO3KFY6MMUHGYSFV","length":"583","offset":"19594","filename":"ota-lovescout24-20220120143355.warc.gz"}
}
