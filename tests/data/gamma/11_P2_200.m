Network 11_P2_200 {
Layer L11 {
Type: CONV
Dimensions { K: 256, C: 96, Y: 31, X: 31, R: 5, S: 5 }
Dataflow {
TemporalMap(5,5) R;
SpatialMap(1,1) C;
TemporalMap(37,37) K;
TemporalMap(29,29) X';
TemporalMap(31,31) Y';
TemporalMap(5,5) S;
Cluster(37,P);
SpatialMap(1,1) K;
TemporalMap(5,5) S;
TemporalMap(5,5) R;
TemporalMap(1,1) Y';
TemporalMap(1,1) X';
TemporalMap(1,1) C;
}
}
}
