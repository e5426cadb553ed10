Network 15_P2_384 {
Layer L15 {
Type: CONV
Dimensions { K: 512, C: 256, Y: 30, X: 30, R: 3, S: 3 }
Dataflow {
TemporalMap(3,3) S;
SpatialMap(1,1) C;
TemporalMap(29,29) X';
TemporalMap(1,1) K;
TemporalMap(3,3) R;
TemporalMap(12,12) Y';
Cluster(6,P);
TemporalMap(1,1) C;
TemporalMap(1,1) K;
TemporalMap(3,3) S;
SpatialMap(1,1) Y';
TemporalMap(3,3) R;
TemporalMap(1,1) X';
}
}
}
