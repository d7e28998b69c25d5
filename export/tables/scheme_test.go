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
