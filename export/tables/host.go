package tables

import (
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// hostName returns the host of a URI as recorded, lower-case, without
// userinfo, port, brackets of an IPv6 literal or a trailing dot. It reads
// the authority by hand rather than with net/url, which refuses the
// spaces and stray characters real WARC-Target-URIs contain. A URI
// without "scheme://" (dns:example.com, urn:...) has no host: "".
func hostName(uri string) string {
	i := strings.Index(uri, "://")
	if i <= 0 || strings.ContainsAny(uri[:i], "/?#") {
		return ""
	}
	rest := uri[i+3:]
	if j := strings.IndexAny(rest, "/?#\\"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndexByte(rest, '@'); j >= 0 {
		rest = rest[j+1:]
	}
	if strings.HasPrefix(rest, "[") {
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			return strings.ToLower(rest[1:j])
		}
		return strings.ToLower(rest[1:])
	}
	if j := strings.IndexByte(rest, ':'); j >= 0 {
		rest = rest[:j]
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(rest), "."))
}

// registeredDomain returns the registered domain of host (the public
// suffix plus one label, private suffixes included as x/net/publicsuffix
// lists them), or nil for an IP address, a host that is itself a public
// suffix, and a host whose suffix the list does not know (such as
// "localhost" or "intranet.corp"): the implicit "*" rule would make any
// last label a suffix, which is not a registration.
func registeredDomain(host string) *string {
	if host == "" {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	suffix, icann := publicsuffix.PublicSuffix(host)
	if !icann && !strings.Contains(suffix, ".") {
		return nil // no rule matched: the default "*"
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return nil
	}
	return &d
}

// hostTLD is url_host_tld as Common Crawl computes it: the last label of
// the host, in ASCII (an IDN label as punycode); nil without a host and
// for an IP address, whose last label is a number, not a domain.
func hostTLD(host string) *string {
	if host == "" {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	tld := host[strings.LastIndexByte(host, '.')+1:]
	if tld == "" || strings.Trim(tld, "0123456789") == "" {
		return nil // "1.2.3.4." style or decimal IPv4 variants
	}
	if a, err := idna.ToASCII(tld); err == nil {
		tld = a
	}
	return &tld
}

// urlParts returns url_path and url_query as java.net.URL's getPath and
// getQuery give them to Common Crawl's index: the path as recorded ("" when
// the URL has none), the query after '?' without it (null when there is
// no '?'), both without the fragment. A URI without a host (see hostName)
// has neither. The URI is cut by hand as hostName does, so spaces and
// stray characters stay as recorded.
func urlParts(uri string) (path, query *string) {
	i := strings.Index(uri, "://")
	if i <= 0 || strings.ContainsAny(uri[:i], "/?#") {
		return nil, nil
	}
	rest, _, _ := strings.Cut(uri[i+3:], "#")
	j := strings.IndexAny(rest, "/?\\")
	if j < 0 {
		p := ""
		return &p, nil
	}
	p, q, ok := strings.Cut(rest[j:], "?")
	if ok {
		query = &q
	}
	return &p, query
}

// isWeb says whether a url_protocol is the web's. The others (wget's
// metadata:// log, dns:, urn:…) are records about the crawl, not pages
// of a site: they have captures rows but no host, no urls row and no
// changes (docs/TABLES.md, "Records about the crawl").
func isWeb(protocol string) bool { return protocol == "http" || protocol == "https" }

// webHost is the host of uri when its protocol is the web's, else "":
// wget's metadata://gnu.org/... names the tool's site, not a host crawled.
func webHost(uri, protocol string) string {
	if !isWeb(protocol) {
		return ""
	}
	return hostName(uri)
}

// urlPort is the port written in uri's authority, as Common Crawl's
// url_port: nil when none is written (the protocol's default) or it is
// not a number in 0–65535.
func urlPort(uri string) *int32 {
	i := strings.Index(uri, "://")
	if i <= 0 || strings.ContainsAny(uri[:i], "/?#") {
		return nil
	}
	rest := uri[i+3:]
	if j := strings.IndexAny(rest, "/?#\\"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndexByte(rest, '@'); j >= 0 {
		rest = rest[j+1:]
	}
	// The last colon: an IPv6 literal's end with "]", never a number.
	j := strings.LastIndexByte(rest, ':')
	if j < 0 {
		return nil
	}
	p, err := strconv.ParseUint(rest[j+1:], 10, 16)
	if err != nil {
		return nil
	}
	v := int32(p)
	return &v
}

// urlScheme is the scheme of a URI, lower-case ("http", "https",
// "metadata" for wget's log records, "dns", "urn"...); "" when it has
// none. It tells the pages of a site from the records about the crawl.
func urlScheme(uri string) string {
	i := strings.IndexByte(uri, ':')
	if i <= 0 {
		return ""
	}
	for j, c := range uri[:i] {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return ""
		}
	}
	return strings.ToLower(uri[:i])
}
