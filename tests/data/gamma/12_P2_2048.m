Network 12_P2_2048 {
Layer L12 {
Type: CONV
Dimensions { K: 96, C: 24, Y: 56, X: 56, R: 1, S: 1 }
Dataflow {
TemporalMap(24,24) C;
TemporalMap(1,1) S;
TemporalMap(1,1) R;
TemporalMap(31,31) X';
SpatialMap(1,1) K;
TemporalMap(12,12) Y';
Cluster(13,P);
TemporalMap(1,1) Y';
TemporalMap(1,1) K;
TemporalMap(1,1) R;
TemporalMap(29,29) X';
SpatialMap(1,1) C;
TemporalMap(1,1) S;
}
}
}
