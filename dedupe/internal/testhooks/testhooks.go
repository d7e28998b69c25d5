// Package testhooks holds what tests of the archive's packages set on a
// pack writer and no caller should: fault injection, and the bound of
// chunk seeding that makes small archives exercise it (the bound of
// chains of frames, once a hook too, is pack.Options.ChainBytes, the
// archive setting ingest -chain gives). pack.Options carries them unexported
// (pack.Options.SetTestHooks); being internal to dedupe/, this package
// cannot be named, so the hooks cannot be set, from outside the
// archive's own packages and their tests.
package testhooks

// Pack are a pack writer's test hooks. The zero value sets none.
type Pack struct {
	// Faults, when set, is called before the writer writes a frame to a
	// pack, syncs a pack, writes or syncs an index or a parity sidecar
	// (repair's included), and writes, syncs or renames a commit file,
	// with the operation ("write", "sync", "rename") and the file's path;
	// an error it returns fails the operation as the system's would (a
	// full disk, EIO). Nil costs nothing.
	Faults func(op, path string) error
	// SeedBytes bounds the chunks of the archive's last frames that a
	// commit's chunk writer reads back into its table when it starts
	// (chunk.Options.SeedBytes: 0 the default, 32 MiB; negative none).
	// An archive setting (pack.Settings): recorded when the archive is
	// created, and from the next commit on when given to a writer of an
	// existing one.
	SeedBytes int
	// ChunkFrameSize is the plaintext size at which a writer closes a
	// frame of chunks (chunk.Options.FrameSize; 0 the default, 4 MiB):
	// BenchmarkScale scales it down with the chain bound, so that a
	// corpus of megabytes fills its frames as a crawl of gigabytes does.
	// Not an archive setting: only the bytes written depend on it.
	ChunkFrameSize int
}
