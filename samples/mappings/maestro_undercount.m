// A mapping MAESTRO undercounts (doc/cost-model.md, "Impossible figures"), small enough to animate on P2
// (samples/accelerators/P2_edge.json, 1024 PEs; the default project's accelerator): a CONV layer
// (32 filters, 64 channels, 3x3, 28x28 input) under a GAMMA-like two-level mapping whose tiles do not
// divide - 32 clusters of 32 PEs, channels in pairs over the clusters, filters over a cluster's PEs,
// output rows in tiles of 16 then 15, columns in tiles of 7 then 3. MAESTRO's figure, 7899 cycles for
// 12460032 MACs, is below the compute bound of 12168 cycles on 1024 PEs: `marvel evaluate` flags it
// maestro-undercount with the corrected runtime, 12417 cycles, which `marvel simulate` and the app's
// animation (File > Animate a MAESTRO Mapping...) execute exactly.
Network MaestroUndercount {
  Layer GAMMA_LIKE {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 32, C: 64, R: 3, S: 3, Y: 28, X: 28 }
    Dataflow {
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
      TemporalMap(7,7) X';
      SpatialMap(2,2) C;
      TemporalMap(32,32) K;
      TemporalMap(16,16) Y';
      Cluster(32,P);
      SpatialMap(1,1) K;
      TemporalMap(3,3) X';
      TemporalMap(15,15) Y';
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
      TemporalMap(1,1) C;
    }
  }
}
