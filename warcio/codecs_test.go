package warcio

import "testing"

// TestCodecs checks the input compression table: every compression is
// sniffed from its magic and named by its suffixes, which ExpandInputs'
// name rule and TrimCompressionSuffix both follow in any case.
func TestCodecs(t *testing.T) {
	for i, k := range codecs {
		c := Compression(i)
		if k.name == "" || k.open == nil || c.String() != k.name {
			t.Errorf("codec %d incomplete: %+v", i, k)
		}
		if k.magic != nil {
			head := append(append([]byte{}, k.magic...), 0, 0, 0, 0)[:4]
			if got := sniffCompression(head); got != c {
				t.Errorf("%s magic %x sniffed as %s", k.name, head, got)
			}
		}
		for _, s := range k.suffixes {
			for _, name := range []string{"crawl.warc" + s, "CRAWL.WARC" + s, "x.arc" + s + ".open"} {
				if !IsInputName(name) {
					t.Errorf("%s is not an input name", name)
				}
			}
			if got := TrimCompressionSuffix("a.warc" + s); got != "a.warc" {
				t.Errorf("TrimCompressionSuffix(a.warc%s) = %q", s, got)
			}
			if got := TrimCompressionSuffix("A.WARC" + s + ".OPEN"); got != "A.WARC" {
				t.Errorf("TrimCompressionSuffix(A.WARC%s.OPEN) = %q", s, got)
			}
		}
	}
	if got := sniffCompression([]byte("WARC")); got != CompressionNone {
		t.Errorf("plain WARC sniffed as %s", got)
	}
	for _, name := range []string{"a.warc.gzip", "a.txt.gz", "warc"} {
		if IsInputName(name) {
			t.Errorf("%s taken for an input name", name)
		}
	}
	if got := TrimCompressionSuffix("a.warc"); got != "a.warc" {
		t.Errorf("TrimCompressionSuffix(a.warc) = %q", got)
	}
}
