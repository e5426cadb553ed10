Network 14_P2_2048 {
Layer L14 {
Type: CONV
Dimensions { K: 512, C: 512, Y: 9, X: 9, R: 3, S: 3 }
Dataflow {
TemporalMap(9,9) Y';
SpatialMap(1,1) K;
TemporalMap(1,1) C;
TemporalMap(8,8) X';
TemporalMap(3,3) R;
TemporalMap(3,3) S;
Cluster(3,P);
TemporalMap(1,1) X';
TemporalMap(3,3) S;
TemporalMap(1,1) K;
TemporalMap(3,3) R;
SpatialMap(1,1) Y';
TemporalMap(1,1) C;
}
}
}
