package warcio

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestSURTWarcioJS checks SURT against keys computed by warcio.js 2.4.11's
// getSurt (the function behind `warcio cdx-index`) for every
// WARC-Target-URI of the interop samples and the corpus, plus edge cases
// (ports, IPv4/IPv6 forms, IDNA, dot segments, percent-encoding, schemes
// left alone). Regenerate testdata/walk/surt-pairs.jsonl with node:
// each line is ["uri","key"].
func TestSURTWarcioJS(t *testing.T) {
	f, err := os.Open("testdata/walk/surt-pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var pair [2]string
		if err := json.Unmarshal(sc.Bytes(), &pair); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		if got := SURT(pair[0]); got != pair[1] {
			t.Errorf("SURT(%q) = %q, warcio.js says %q", pair[0], got, pair[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 500 {
		t.Fatalf("only %d pairs read", n)
	}
}

func TestSURT(t *testing.T) {
	tests := []struct{ in, want string }{
		// The corpus: each site on its own port of 127.0.0.1.
		{"http://127.0.0.1:8101/", "1,0,0,127:8101)/"},
		{"http://127.0.0.1:8101/about/release-notes/", "1,0,0,127:8101)/about/release-notes/"},
		{"http://www.iana.org/_css/2013.1/screen.css", "org,iana)/_css/2013.1/screen.css"},
		{"https://www3.Example.com:443/A/?b=2&a=1#top", "com,example)/a/?a=1&b=2"},
		{"http://example.com:8080", "com,example:8080)/"},
		{"http://[2001:DB8:0:0:0:0:0:1]:80/", "[2001:db8::1])/"},
		{"http://0x7f.0.0.1/", "1,0,0,127)/"},
		{"dns:www.example.com", "dns:www.example.com"},
		{"filedesc://x.arc", "filedesc://x.arc"},
		{"urn:uuid:8e4bdc2b-1d7c-4b4a-8d6c-2d1d6d9a2c1e", "urn:uuid:8e4bdc2b-1d7c-4b4a-8d6c-2d1d6d9a2c1e"},
		{"", ""},
		{"http://", "http://"},
		{"http://www.exa mple.com/", "http://exa mple.com/"}, // unparseable: only www. dropped
	}
	for _, tt := range tests {
		if got := SURT(tt.in); got != tt.want {
			t.Errorf("SURT(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSURT checks SURT never panics, keeps non-HTTP URIs unchanged and
// always yields a host part for URIs it transforms.
func FuzzSURT(f *testing.F) {
	for _, s := range []string{"http://www.example.com/a?b=1", "https://[::1]:8443/", "http://0x7f.1/%2e%2e", "dns:x", "http://münchen.de/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		key := SURT(uri)
		if !strings.HasPrefix(uri, "http:") && !strings.HasPrefix(uri, "https:") {
			if key != uri {
				t.Fatalf("SURT(%q) = %q, want unchanged", uri, key)
			}
			return
		}
		if key != stripWWW(uri) && !strings.Contains(key, ")/") {
			t.Fatalf("SURT(%q) = %q: no host part", uri, key)
		}
	})
}
