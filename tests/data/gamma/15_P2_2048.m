Network 15_P2_2048 {
Layer L15 {
Type: CONV
Dimensions { K: 512, C: 256, Y: 30, X: 30, R: 3, S: 3 }
Dataflow {
SpatialMap(1,1) K;
TemporalMap(1,1) C;
TemporalMap(30,30) Y';
TemporalMap(3,3) S;
TemporalMap(3,3) R;
TemporalMap(29,29) X';
Cluster(30,P);
TemporalMap(3,3) S;
TemporalMap(1,1) K;
TemporalMap(1,1) C;
TemporalMap(3,3) R;
TemporalMap(1,1) X';
SpatialMap(1,1) Y';
}
}
}
