// Package gradewire is the contract between the server and its grading
// child: the job the parent sends on the child's stdin, the NDJSON lines
// the child writes back, and the report those lines carry. Both sides
// import it and nothing else of each other, so it holds data and the few
// pure functions that read it, and imports neither the interpreter nor
// any grading engine: the web layer, the rooms and the parent's pool
// service reach a report through here alone.
//
// The report's JSON is the shape stored with every grade run since the
// first release; fields are added (with omitempty), never renamed, so a
// report stored years ago still renders.
package gradewire
