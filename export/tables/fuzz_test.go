package tables

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHostName: any recorded URI gives a lower-case host without port or
// path, and a registered domain (when any) that is a suffix of it.
func FuzzHostName(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:8101/", "https://User:pw@WWW.Example.COM:8443/a?b#c", "http://[2001:DB8::1]:80/x",
		"dns:example.com", "http://a.b.example.co.uk./", "http://exa mple.com/", "metadata://gnu.org/x", "http://@:/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		h := hostName(uri)
		if h != strings.ToLower(h) && utf8.ValidString(h) {
			t.Errorf("hostName(%q) = %q, not lower-case", uri, h)
		}
		if strings.ContainsAny(h, "/?#@") {
			t.Errorf("hostName(%q) = %q holds a delimiter", uri, h)
		}
		if d := registeredDomain(h); d != nil && !strings.HasSuffix(h, *d) {
			t.Errorf("registeredDomain(%q) = %q, not a suffix", h, *d)
		}
	})
}

// FuzzPageTitle: any page bytes in any charset give a valid UTF-8 title
// with collapsed white space, or none.
func FuzzPageTitle(f *testing.F) {
	for _, s := range []string{
		"<html><head><title> A  &amp; B\n</title></head><body>x</body>", "<title>caf\xe9</title>",
		"<svg><title>x</title></svg>", "<title>", "<title><!-- </title> -->", "<body><title>late</title>",
	} {
		f.Add([]byte(s), "utf-8")
		f.Add([]byte(s), "windows-1252")
	}
	f.Fuzz(func(t *testing.T, doc []byte, cs string) {
		p := pageTitle(doc, cs)
		if p == nil {
			return
		}
		if !utf8.ValidString(*p) {
			t.Errorf("title %q is not UTF-8", *p)
		}
		if *p != strings.Join(strings.Fields(*p), " ") {
			t.Errorf("title %q has uncollapsed white space", *p)
		}
	})
}

// FuzzNormSHA1: a declared digest normalises to 32 upper-case base32
// characters without "sha1:", or to "" — and declaring the result as
// sha1 gives it back.
func FuzzNormSHA1(f *testing.F) {
	for _, s := range []string{"sha1:WH4UTNESBR3T7WOIMNDZV2NHRC4URR5N", "sha1:b1f949b4920c773fd9c863479ae9a788b948c7ad",
		"sha1:sflJtJIMdz/ZyGNHmumniLlIx60=", "sha256:abc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, decl string) {
		d := normSHA1(decl)
		if d == "" {
			return
		}
		if len(d) != 32 || strings.Trim(d, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" || normSHA1("sha1:"+d) != d {
			t.Errorf("normSHA1(%q) = %q", decl, d)
		}
	})
}
