Network n {
  Layer L {
    Type: GEMM
    Dimensions { M: 4611686018427387904, N: 4611686018427387904, K: 4 }
    Dataflow {
      SpatialMap(1,1) M;
      TemporalMap(1,1) N;
      TemporalMap(1,1) K;
    }
  }
}
