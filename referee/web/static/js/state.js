// The dashboard's one shared state: what the server said and what the player picked.
export const S = {
  info: null,          // /api/info
  pieces: {},          // id -> roster piece (side, base, colour, ranges)
  live: {},            // id -> latest tracked pose from the stream
  terrain: [],         // current terrain (scene-file objects)
  selected: [],        // tapped pieces, at most two
  dispute: null,       // {queries, verdicts}
  threats: null,       // {from, verdict, error}: what the one tapped piece can hit (threat view)
  replay: null,        // scene shown while scrubbing the log
  events: [],
  drawing: null,       // terrain vertices being drawn
  kind: "woods",
  picked: null,        // terrain id picked in the terrain list
  redraw: null,        // terrain id whose outline is being drawn again
  lastFrame: null,
  shown: [],           // [frame, ms since epoch] when the map showed a frame (benchmarks)
  generation: null,    // the newest game generation the stream announced
  replaySeq: null,     // the event the replayed scene stands at
  shownMove: null,     // seq of the move whose verdict is shown (tapped arrow)
  tool: null,          // "ruler" while the map measures instead of picking pieces
  ruler: { points: [], hover: null, done: false },
  doubt: null,         // /api/doubt: how far a map point may be from the cloth (inches)
  view: null,          // [x, y, w, h] of the map's viewBox (zoom and pan)
  home: null,          // the whole table's viewBox
  ended: null,         // why the table stopped ("video ended"...), null while it plays
  camera: 1,           // which camera's picture the camera panel shows (from 1)
  font: { label: 0.8, small: 0.6 },  // the map's word sizes now (inches on the table)
  movedSince: {},      // piece id -> seq of the correction it was seen moving after
  asked: null,         // the questions of the shown dispute (a pair, Follow Me), asked again on changes
};
