package tables

import "testing"

func TestRedirectTarget(t *testing.T) {
	for _, c := range []struct{ target, location, want string }{
		{"http://example.com/a/b?x=1", "https://www.example.com/", "https://www.example.com/"},
		{"http://example.com/a/b?x=1", "/c", "http://example.com/c"},
		{"http://example.com/a/b?x=1", "c/d?y=2", "http://example.com/a/c/d?y=2"},
		{"http://example.com/a/b", "../up", "http://example.com/up"},
		{"https://example.com/a", "//cdn.example.net/x", "https://cdn.example.net/x"},
		{"http://example.com/a", "?page=2", "http://example.com/a?page=2"},
		{"http://example.com/a", " /padded ", "http://example.com/padded"},
		{"http://example.com/a", "http://other.org/b c", "http://other.org/b c"}, // absolute: as sent
		{"http://example.com/a", "", ""},
		{"http://example.com/a", "/bad%zz", ""},
		{"dns:example.com", "/x", ""},
		{"http://exa mple.com/a", "/x", ""}, // an unparseable base
	} {
		got := redirectTarget(c.target, c.location)
		if (got == nil) != (c.want == "") || got != nil && *got != c.want {
			t.Errorf("redirectTarget(%q, %q) = %v, want %q", c.target, c.location, deref(got), c.want)
		}
	}
}
