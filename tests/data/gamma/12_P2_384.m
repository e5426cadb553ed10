Network 12_P2_384 {
Layer L12 {
Type: CONV
Dimensions { K: 96, C: 24, Y: 56, X: 56, R: 1, S: 1 }
Dataflow {
SpatialMap(2,2) K;
TemporalMap(1,1) R;
TemporalMap(12,12) C;
TemporalMap(16,16) Y';
TemporalMap(31,31) X';
TemporalMap(1,1) S;
Cluster(16,P);
TemporalMap(1,1) R;
TemporalMap(29,29) X';
SpatialMap(1,1) Y';
TemporalMap(1,1) C;
TemporalMap(2,2) K;
TemporalMap(1,1) S;
}
}
}
