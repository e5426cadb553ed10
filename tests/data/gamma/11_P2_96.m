Network 11_P2_96 {
Layer L11 {
Type: CONV
Dimensions { K: 256, C: 96, Y: 31, X: 31, R: 5, S: 5 }
Dataflow {
TemporalMap(30,30) Y';
TemporalMap(5,5) R;
TemporalMap(9,9) C;
TemporalMap(29,29) X';
SpatialMap(1,1) K;
TemporalMap(5,5) S;
Cluster(3,P);
SpatialMap(1,1) C;
TemporalMap(1,1) Y';
TemporalMap(1,1) K;
TemporalMap(5,5) S;
TemporalMap(1,1) X';
TemporalMap(5,5) R;
}
}
}
