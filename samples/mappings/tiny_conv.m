// A tiny convolution to watch step by step (marvel simulate --frames): K spread over the PEs, C, Y, X in
// time, the 3x3 filter held whole (the cost-model specification's worked example 1).
Network Tiny {
  Layer L1 {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 4, C: 2, R: 3, S: 3, Y: 6, X: 6 }
    Dataflow {
      SpatialMap(1,1) K;
      TemporalMap(1,1) C;
      TemporalMap(Sz(R),1) Y;
      TemporalMap(Sz(S),1) X;
      TemporalMap(Sz(R),Sz(R)) R;
      TemporalMap(Sz(S),Sz(S)) S;
    }
  }
}
