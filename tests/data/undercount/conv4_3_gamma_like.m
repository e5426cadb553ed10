// VGG16 CONV4_3 as MAESTRO's models write it (Y, X: 28 input rows and columns, 26x26 outputs) on P2
// (samples/accelerators/P2_edge.json, 1024 PEs), twice:
// - GAMMA_LIKE, a GAMMA-like two-level mapping whose tiles do not divide (output rows 16 then 15,
//   columns 7 then 3): MAESTRO reports 982497 cycles for 1594884096 MACs, 1623 MACs per cycle on 1024
//   PEs, below the compute bound of 1557504 cycles; corrected fidelity: 1560801 cycles (issue 22,
//   point 3; doc/cost-model.md "Impossible figures").
// - KCP_WS, a weight-stationary mapping whose figure is possible.
Network VGG16_CONV4_3 {
  Layer GAMMA_LIKE {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 512, C: 512, R: 3, S: 3, Y: 28, X: 28 }
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
  Layer KCP_WS {
    Type: CONV
    Stride { X: 1, Y: 1 }
    Dimensions { K: 512, C: 512, R: 3, S: 3, Y: 28, X: 28 }
    Dataflow {
      SpatialMap(1,1) K;
      TemporalMap(64,64) C;
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
      TemporalMap(1,1) Y';
      TemporalMap(1,1) X';
      Cluster(64,P);
      SpatialMap(1,1) C;
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
    }
  }
}
