// VGG16's second convolution (64 -> 64 channels, 3x3 filter, 224x224 input) in three mapping styles.
// Evaluate with: marvel evaluate --hw samples/accelerators/P1_eyeriss.json --mapping samples/mappings/vgg16_conv2_styles.m
Network vgg16_conv2_styles {
  // Weight stationary (NVDLA-like): output channels across PE clusters, input channels inside a cluster.
  Layer CONV2_weight_stationary {
    Type: CONV
    Dimensions { K: 64, C: 64, R: 3, S: 3, Y: 224, X: 224 }
    Dataflow {
      SpatialMap(1,1) K;
      TemporalMap(8,8) C;
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
      TemporalMap(3,1) Y;
      TemporalMap(3,1) X;
      Cluster(8,P);
      SpatialMap(1,1) C;
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
    }
  }
  // Output stationary (ShiDianNao-like): output rows across PEs, each PE accumulates its outputs.
  Layer CONV2_output_stationary {
    Type: CONV
    Dimensions { K: 64, C: 64, R: 3, S: 3, Y: 224, X: 224 }
    Dataflow {
      TemporalMap(1,1) K;
      TemporalMap(1,1) C;
      SpatialMap(3,1) Y;
      TemporalMap(3,1) X;
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
    }
  }
  // Row stationary (Eyeriss-like): filter rows across the PEs of a cluster, output rows across clusters.
  Layer CONV2_row_stationary {
    Type: CONV
    Dimensions { K: 64, C: 64, R: 3, S: 3, Y: 224, X: 224 }
    Dataflow {
      TemporalMap(2,2) K;
      TemporalMap(2,2) C;
      SpatialMap(3,1) Y;
      TemporalMap(3,1) X;
      TemporalMap(3,3) R;
      TemporalMap(3,3) S;
      Cluster(3,P);
      SpatialMap(1,1) Y;
      SpatialMap(1,1) R;
      TemporalMap(3,3) S;
    }
  }
}
