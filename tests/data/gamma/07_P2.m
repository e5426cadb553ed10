Network 07_P2 {
Layer L07 {
Type: CONV
Dimensions { K: 512, C: 512, Y: 30, X: 30, R: 3, S: 3 }
Dataflow {
SpatialMap(1,1) C;
TemporalMap(30,30) X';
TemporalMap(1,1) K;
TemporalMap(29,29) Y';
TemporalMap(3,3) R;
TemporalMap(3,3) S;
Cluster(29,P);
TemporalMap(1,1) X';
SpatialMap(1,1) Y';
TemporalMap(3,3) S;
TemporalMap(1,1) K;
TemporalMap(1,1) C;
TemporalMap(3,3) R;
}
}
}
