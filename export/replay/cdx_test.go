package replay

import (
	"net/url"
	"testing"
)

// TestKeyMatcher: which SURT keys each matchType selects.
func TestKeyMatcher(t *testing.T) {
	keys := []string{
		"com,example)/", "com,example)/a", "com,example)/a/b", "com,example)/ab",
		"com,example,www)/a", "com,example:8080)/a", "com,examplefoo)/a", "org,example)/a",
	}
	cases := []struct {
		url   string
		match MatchType
		want  []string
	}{
		{"http://example.com/a", MatchExact, []string{"com,example)/a"}},
		{"example.com/a", "", []string{"com,example)/a"}},
		{"http://example.com/a", MatchPrefix, []string{"com,example)/a", "com,example)/a/b", "com,example)/ab"}},
		{"http://example.com/a/", MatchPrefix, []string{"com,example)/a/b"}},
		{"example.com/anything", MatchHost, []string{"com,example)/", "com,example)/a", "com,example)/a/b", "com,example)/ab"}},
		{"example.com", MatchDomain, []string{"com,example)/", "com,example)/a", "com,example)/a/b", "com,example)/ab", "com,example,www)/a"}},
	}
	for _, c := range cases {
		q := &Query{URL: c.url, Match: c.match}
		_, match, err := q.keyMatcher()
		if err != nil {
			t.Fatalf("%s %s: %v", c.url, c.match, err)
		}
		var got []string
		for _, k := range keys {
			if match(k) {
				got = append(got, k)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s %s: %q, want %q", c.url, c.match, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s %s: %q, want %q", c.url, c.match, got, c.want)
				break
			}
		}
	}
}

// TestFilter: the three filter forms and their negations.
func TestFilter(t *testing.T) {
	line := []byte(`com,example)/a 20220102030405 {"url":"http://example.com/a","mime":"text/html","status":"200","digest":"ABC","length":"10","offset":"0","filename":"x.warc.gz"}` + "\n")
	cases := map[string]bool{
		"status:200": true, "status:2": true, "status:00": false, "!status:200": false,
		"statuscode:2..": true, "mimetype:text/.*": true, "~url:example": true, "!~url:example": false,
		"~filename:warc": true, "urlkey:com,example\\)": true, "timestamp:2022": true,
		"missing:.*": false, "!missing:.*": true,
	}
	for f, want := range cases {
		pf, err := ParseFilter(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got := pf.Keep(line); got != want {
			t.Errorf("filter %s: %v, want %v", f, got, want)
		}
	}
	for _, bad := range []string{"nocolon", ":x", "status:("} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("filter %q accepted", bad)
		}
	}
	// Shorthands of the query string.
	q, _, err := ParseQuery(url.Values{"url": {"*.example.com"}})
	if err != nil || q.Match != MatchDomain || q.URL != "example.com" {
		t.Errorf("*.example.com: %+v %v", q, err)
	}
}
