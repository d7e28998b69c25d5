// Package warcio reads WARC and ARC crawl dumps as a stream of records.
package warcio
