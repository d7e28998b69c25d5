package partition

import (
	"embed"
	"strings"
)

// Stop lists are embedded so the binary carries them; see
// stopwords/README.md for their source and licence.
//
//go:embed stopwords/*.txt
var stopFS embed.FS

// stopLists maps an ISO 639-1 language code to its stop set. It is built
// once at start-up and only read afterwards.
var stopLists = loadStopLists()

func loadStopLists() map[string]map[string]bool {
	files := map[string]string{"en": "english.txt", "de": "german.txt", "fr": "french.txt"}
	out := make(map[string]map[string]bool, len(files))
	for code, name := range files {
		b, err := stopFS.ReadFile("stopwords/" + name)
		if err != nil {
			continue // cannot happen: the files are embedded at build time
		}
		set := make(map[string]bool)
		for _, w := range strings.Fields(string(b)) {
			set[w] = true
		}
		out[code] = set
	}
	return out
}

// isStopWord reports whether the lower-case word w is a stop word of
// lang. An unknown language uses the English list, since English words
// are the most common foreign words on web pages.
func isStopWord(w, lang string) bool {
	set := stopLists[lang]
	if set == nil {
		set = stopLists["en"]
	}
	return set[w]
}

// stemmerNames maps language codes to the snowball stemmer that handles
// them; languages absent here are not stemmed (github.com/kljensen/snowball
// v0.10 has no German stemmer).
var stemmerNames = map[string]string{
	"en": "english", "fr": "french", "es": "spanish", "ru": "russian",
	"sv": "swedish", "no": "norwegian", "nb": "norwegian", "nn": "norwegian",
	"hu": "hungarian",
}
