Network n {
  Layer L1 {
    Type: CONV
    Dimensions { K: -8, C: 4, R: 3, S: 3, Y: 10, X: 10 }
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
