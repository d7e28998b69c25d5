package dedupe

import "blockwarc/partition"

// PageOptions are the partition options of an HTML payload, the one
// payload → page decision that ingest, the tables and the blocks command
// share, so they all read a page alike: the charset is the partition's
// DetectCharset of the decoded document and its Content-Type (BOM, HTTP
// charset, a <meta> declaration wherever it is, then UTF-8 or
// windows-1252), the level the URL is archived at, the target URI as the
// base for links. doc must be the de-chunked, content-decoded entity.
func PageOptions(contentType string, level int, baseURL string) partition.Options {
	return partition.Options{ContentType: contentType, Level: level, BaseURL: baseURL}
}
