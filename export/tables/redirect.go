package tables

import (
	"net/url"
	"strings"
)

// redirectTarget is fetch_redirect: the Location of a redirect resolved
// against the target URI (RFC 9110 allows a relative reference), so the
// value joins with the url of the capture it leads to. An absolute
// Location is kept as sent (re-serialising would re-escape it); nil when
// there is none or it cannot be resolved.
func redirectTarget(target, location string) *string {
	loc := strings.TrimSpace(location)
	if loc == "" {
		return nil
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return nil
	}
	if !ref.IsAbs() {
		base, err := url.Parse(target)
		if err != nil || !base.IsAbs() || base.Opaque != "" {
			return nil
		}
		loc = base.ResolveReference(ref).String()
	}
	// Header bytes need not be UTF-8; a string column must be.
	loc = strings.ToValidUTF8(loc, "\uFFFD")
	return &loc
}
