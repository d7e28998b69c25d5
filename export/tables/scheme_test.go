package tables

import "testing"

func TestURLScheme(t *testing.T) {
	for in, want := range map[string]string{
		"http://example.org/":                            "http",
		"HTTPS://example.org/a":                          "https",
		"metadata://gnu.org/software/wget/warc/wget.log": "metadata",
		"dns:example.org":                                "dns",
		"urn:uuid:00000000-0000-4000-8000-000000000000":  "urn",
		"x-ftp+tls.1://host/":                            "x-ftp+tls.1",
		"":                                               "",
		"/relative/path":                                 "",
		"1http://bad/":                                   "",
		"ex ample:x":                                     "",
	} {
		if got := urlScheme(in); got != want {
			t.Errorf("urlScheme(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestURLPort: url_port is the port written in the authority, as Common
// Crawl's, never one inside an IPv6 literal, a path or userinfo.
func TestURLPort(t *testing.T) {
	for in, want := range map[string]int32{
		"http://127.0.0.1:8103/a":          8103,
		"https://user:pw@example.org:443/": 443,
		"http://[2001:db8::1]:8080/x":      8080,
		"http://[2001:db8::1]/x":           -1,
		"http://example.org/a:80":          -1,
		"http://example.org?q=:80":         -1,
		"http://example.org:/":             -1,
		"http://example.org:99999/":        -1,
		"http://example.org":               -1,
		"dns:example.org:53":               -1,
	} {
		got := urlPort(in)
		if want < 0 && got != nil || want >= 0 && (got == nil || *got != want) {
			t.Errorf("urlPort(%q) = %v, want %d (-1: null)", in, got, want)
		}
	}
}
