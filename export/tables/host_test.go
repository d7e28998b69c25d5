package tables

import "testing"

func TestHostName(t *testing.T) {
	for _, tc := range []struct{ uri, want string }{
		{"http://127.0.0.1:8101/", "127.0.0.1"},
		{"https://User:pw@WWW.Example.COM:8443/a?b#c", "www.example.com"},
		{"http://example.com.", "example.com"},
		{"http://[2001:DB8::1]:80/x", "2001:db8::1"},
		{"http://example.com/a b/c", "example.com"},           // spaces, as some crawlers record them
		{"http://example.com?q=http://x.org/", "example.com"}, // a URL in the query
		{"http://exa mple.com/", "exa mple.com"},              // kept as recorded, not rejected
		{"dns:example.com", ""},
		{"urn:uuid:1234", ""},
		{"metadata://gnu.org/software/wget/warc/MANIFEST.txt", "gnu.org"},
		{"", ""},
	} {
		if got := hostName(tc.uri); got != tc.want {
			t.Errorf("hostName(%q) = %q, want %q", tc.uri, got, tc.want)
		}
	}
}

func TestRegisteredDomain(t *testing.T) {
	for _, tc := range []struct {
		host string
		want string // "" = null
	}{
		{"www.example.com", "example.com"},
		{"a.b.example.co.uk", "example.co.uk"},
		{"example.co.uk", "example.co.uk"},
		{"co.uk", ""},                            // a public suffix itself
		{"foo.blogspot.com", "foo.blogspot.com"}, // private suffix, as x/net lists it
		{"127.0.0.1", ""},
		{"2001:db8::1", ""},
		{"localhost", ""},
		{"intranet.corp", ""}, // unknown suffix
		{"", ""},
	} {
		got := registeredDomain(tc.host)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("registeredDomain(%q) = %q, want null", tc.host, *got)
		case tc.want != "" && (got == nil || *got != tc.want):
			t.Errorf("registeredDomain(%q) = %v, want %q", tc.host, got, tc.want)
		}
	}
}

func TestNormSHA1(t *testing.T) {
	const want = "WH4UTNESBR3T7WOIMNDZV2NHRC4URR5N"
	for _, decl := range []string{
		"sha1:WH4UTNESBR3T7WOIMNDZV2NHRC4URR5N",
		"SHA1:wh4utnesbr3t7woimndzv2nhrc4urr5n",
		"sha1:b1f949b4920c773fd9c863479ae9a788b948c7ad", // hex (warcio--example-iana.org-chunked)
		"sha1:sflJtJIMdz/ZyGNHmumniLlIx60=",             // base64
		" sha-1:WH4UTNESBR3T7WOIMNDZV2NHRC4URR5N ",
	} {
		if got := normSHA1(decl); got != want {
			t.Errorf("normSHA1(%q) = %q, want %q", decl, got, want)
		}
	}
	for _, decl := range []string{"", "sha256:abcd", "sha1:", "sha1:XYZ", "WH4UTNESBR3T7WOIMNDZV2NHRC4URR5N", "md5:WH4UTNESBR3T7WOIMNDZV2NHRC4URR5N"} {
		if got := normSHA1(decl); got != "" {
			t.Errorf("normSHA1(%q) = %q, want \"\"", decl, got)
		}
	}
}

func TestPageTitle(t *testing.T) {
	for _, tc := range []struct {
		doc, cs string
		want    *string
	}{
		{"<html><head><title> A  &amp; B\n</title></head><body>x</body>", "utf-8", ptr("A & B")},
		{"<title></title>", "utf-8", ptr("")},
		{"<body><svg><title>icon</title></svg></body>", "utf-8", nil},
		{"<p>no title</p>", "utf-8", nil},
		{"<title>caf\xe9</title>", "windows-1252", ptr("café")},
		{"<title>caf\xc3\xa9</title>", "", ptr("café")}, // no charset named: valid UTF-8 stays
		{"<title>&lt;b&gt; <b>not a tag</b></title>", "utf-8", ptr("<b> <b>not a tag</b>")},
	} {
		got := pageTitle([]byte(tc.doc), tc.cs)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("pageTitle(%q) = %v, want %v", tc.doc, deref(got), deref(tc.want))
		}
	}
}

func ptr(s string) *string { return &s }

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func TestARCMIME(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"http://www.archive.org/ 207.241.229.39 20080430204825 text/html 366\n", "text/html"},
		{"dns:www.archive.org 68.87.76.178 20080430204825 text/dns 56\n", "text/dns"},
		{"http://example.com/a b.html 1.2.3.4 20140101000000 text/plain 10\n", "text/plain"},    // space in URL
		{"http://e.com/ 1.2.3.4 20140101000000 text/html 200 SHA1 - 0 f.arc 99\n", "text/html"}, // ARC v2
		{"filedesc://x.arc 0.0.0.0 nodate text/plain 70\n", ""},
	} {
		if got := arcMIME([]byte(tc.line)); got != tc.want {
			t.Errorf("arcMIME(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestHostTLD(t *testing.T) {
	for host, want := range map[string]string{
		"www.example.com": "com", "example.co.uk": "uk", "localhost": "localhost",
		"xn--80ak6aa92e.xn--p1ai": "xn--p1ai", "пример.рф": "xn--p1ai",
		"": "", "192.168.0.1": "", "::1": "", "2130706433": "", "10.1": "",
	} {
		if got := hostTLD(host); (got == nil) != (want == "") || got != nil && *got != want {
			t.Errorf("hostTLD(%q) = %v, want %q", host, deref(got), want)
		}
	}
}

func TestURLParts(t *testing.T) {
	const null = "<null>"
	for _, c := range []struct{ uri, path, query string }{
		{"https://example.com/a/b.html?x=1&y=2#top", "/a/b.html", "x=1&y=2"},
		{"https://example.com/a/b.html", "/a/b.html", null},
		{"https://example.com", "", null},
		{"https://example.com?q", "", "q"},
		{"https://example.com/?", "/", ""},
		{"https://example.com/p#frag?notquery", "/p", null},
		{"http://user:pw@example.com:8080/x y?a b", "/x y", "a b"}, // spaces kept as recorded
		{"https://example.com/q?a?b", "/q", "a?b"},
		{"dns:example.com", null, null},
		{"urn:x-wget:log", null, null},
	} {
		p, q := urlParts(c.uri)
		str := func(s *string) string {
			if s == nil {
				return null
			}
			return *s
		}
		if str(p) != c.path || str(q) != c.query {
			t.Errorf("urlParts(%q) = %q, %q; want %q, %q", c.uri, str(p), str(q), c.path, c.query)
		}
	}
}
